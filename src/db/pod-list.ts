import { getTableColumns } from 'drizzle-orm';
import type { LatestInput, UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { pods } from './schema.js';
import { dataVersion, perDatabase } from './statements.js';

export type PodRecord = typeof pods.$inferSelect;
export type PodInput = LatestInput<typeof pods>;

type PodRow = Omit<PodRecord, 'env' | 'actions'> & { env: string; actions: string };

/** The columns a sync takes from the API as they are (env and actions are compared as stored JSON). */
const plainColumns = Object.keys(getTableColumns(pods)).filter(
  (key) => !['account', 'firstSeenAt', 'lastSeenAt', 'goneAt', 'env', 'actions'].includes(key),
) as Array<keyof PodInput & keyof PodRecord>;

interface Listed {
  records: readonly PodRecord[];
  /** By podId: a record as read, with its env and actions as stored, so a sync compares without parsing. */
  stored: ReadonlyMap<string, { record: PodRecord; env: string; actions: string }>;
  /** Set by a sync that changed nothing but last_seen_at; trusted once a key read shows it committed. */
  pendingSeenAt?: number;
}

const lists = perDatabase(({ sqlite }) => ({
  live: sqlite.prepare<[string], PodRow>(
    `SELECT account, pod_id AS podId, name, status, cost_per_hr AS costPerHr, gpu_type_id AS gpuTypeId,
       gpu_count AS gpuCount, cpu_type_id AS cpuTypeId, cloud, data_center_id AS dataCenterId,
       cluster_id AS clusterId, cluster_role AS clusterRole, volume_gb AS volumeGb,
       network_volume_id AS networkVolumeId, env, actions, created_at AS createdAt, started_at AS startedAt,
       first_seen_at AS firstSeenAt, last_seen_at AS lastSeenAt, gone_at AS goneAt
     FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id`,
  ),
  seenAt: sqlite
    .prepare<[string, string], number>('SELECT last_seen_at FROM pods WHERE account = ? AND pod_id = ?')
    .pluck(),
  version: Number.NaN,
  byAccount: new Map<string, Listed>(),
}));

/** The cache, emptied first if another connection (the CLI) committed since it was filled. */
function current(database: Database) {
  const cache = lists(database);
  const version = dataVersion(database);
  if (version !== cache.version) {
    cache.version = version;
    cache.byAccount.clear();
  }
  return cache;
}

function read(database: Database, account: string): Listed {
  const stored = new Map<string, { record: PodRecord; env: string; actions: string }>();
  const records = lists(database)
    .live.all(account)
    .map((row) => {
      const record: PodRecord = {
        ...row,
        env: JSON.parse(row.env) as Record<string, string>,
        actions: JSON.parse(row.actions) as string[],
      };
      stored.set(row.podId, { record, env: row.env, actions: row.actions });
      return record;
    });
  return { records, stored };
}

/**
 * The account's Pods not gone, by id. Read by the idle and waste rules and several metric
 * families every minute, and kept across a sync of the Pod list that changed nothing but
 * last_seen_at (the usual minute at 2,000 Pods: re-reading and parsing them cost a third of the
 * idle tick). Shared between callers: do not modify.
 */
export function livePods(database: Database, account: string): readonly PodRecord[] {
  // The open transaction may still roll back: read what it sees, keep nothing.
  if (database.sqlite.inTransaction) return read(database, account).records;
  const cache = current(database);
  let listed = cache.byAccount.get(account);
  if (listed?.pendingSeenAt !== undefined) listed = confirmed(database, account, listed, listed.pendingSeenAt);
  if (listed === undefined) {
    listed = read(database, account);
    cache.byAccount.set(account, listed);
  }
  return listed.records;
}

/**
 * The list with the pending last_seen_at, if the sync that set it committed (it writes every
 * live Pod's row in one transaction, so one row tells); otherwise nothing, to be read again.
 */
function confirmed(database: Database, account: string, listed: Listed, seenAt: number): Listed | undefined {
  const cache = lists(database);
  const first = listed.records[0];
  if (first === undefined || cache.seenAt.get(account, first.podId) !== seenAt) {
    cache.byAccount.delete(account);
    return undefined;
  }
  // New records, so a list a caller still holds does not change under it; env and actions stay shared.
  const next: Listed = {
    records: listed.records.map((record) => ({ ...record, lastSeenAt: seenAt })),
    stored: listed.stored,
  };
  cache.byAccount.set(account, next);
  return next;
}

/**
 * Called by the Pod list sync before it writes: keeps the account's list (to be confirmed on
 * the next read) when the sync will change nothing but last_seen_at, and drops it otherwise.
 * Returns whether it kept it, i.e. whether the sync changes nothing but last_seen_at.
 */
export function podListSyncing(
  database: Database,
  account: string,
  items: readonly PodInput[],
  now: number,
  unreadable: UnreadableItems | undefined,
): boolean {
  const cache = current(database);
  const listed = cache.byAccount.get(account);
  if (listed === undefined) return false;
  if (listed.records.length > 0 && onlySeen(listed, items, unreadable)) {
    listed.pendingSeenAt = now;
    return true;
  }
  cache.byAccount.delete(account);
  return false;
}

/**
 * Which stored record each item was last found equal to: the Pods collector hands the same item
 * object again while the Pod's record is unchanged, and both sides are never modified, so the
 * comparison of 2,000 items a minute is made once per change instead.
 */
const matched = new WeakMap<PodInput, object>();

/** Whether upserting `items` (and marking the missing ones gone) would change no column but last_seen_at. */
function onlySeen(listed: Listed, items: readonly PodInput[], unreadable: UnreadableItems | undefined): boolean {
  // An unreadable item is not upserted: its last_seen_at would differ from the rest.
  if (unreadable !== undefined && (unreadable.anonymous || unreadable.ids.length > 0)) return false;
  if (items.length !== listed.stored.size) return false;
  const seen = new Set<string>();
  for (const item of items) {
    const stored = listed.stored.get(item.podId);
    if (stored === undefined || seen.has(item.podId)) return false;
    seen.add(item.podId);
    if (matched.get(item) === stored) continue;
    for (const key of plainColumns) if (item[key] !== stored.record[key]) return false;
    // The same encoding as the JSON columns' writer, so equal text is an equal row.
    if (JSON.stringify(item.env) !== stored.env || JSON.stringify(item.actions) !== stored.actions) return false;
    matched.set(item, stored);
  }
  return true;
}
