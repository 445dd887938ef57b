import { getTableColumns } from 'drizzle-orm';
import type { LatestInput, UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { pods } from './schema.js';
import { dataVersion, perDatabase } from './statements.js';

/**
 * A live Pod as stored. Without last_seen_at, which a poll that changes nothing no longer writes
 * to the rows (see pod_lists): the list stays the same objects from one such poll to the next.
 * The time of the account's latest poll is podListPolledAt.
 */
export type PodRecord = Omit<typeof pods.$inferSelect, 'lastSeenAt'>;
export type PodInput = LatestInput<typeof pods>;

type PodRow = Omit<PodRecord, 'env' | 'actions'> & { env: string; actions: string; lastSeenAt: number };

/** The columns a sync takes from the API as they are (env and actions are compared as stored JSON). */
const plainColumns = Object.keys(getTableColumns(pods)).filter(
  (key) => !['account', 'firstSeenAt', 'lastSeenAt', 'goneAt', 'env', 'actions'].includes(key),
) as Array<keyof PodInput & keyof PodRecord>;

interface Listed {
  records: readonly PodRecord[];
  /** By podId: a record as read, with its env and actions as stored, so a sync compares without parsing. */
  stored: ReadonlyMap<string, { record: PodRecord; env: string; actions: string }>;
  /** The latest last_seen_at of the rows, and the one every row holds (undefined when they differ). */
  lastSeenAt: { latest: number; common: number | undefined };
}

/** An account's pod_lists row. */
export interface PodListPoll {
  seenAt: number;
  syncedAt: number;
}

const lists = perDatabase(({ sqlite }) => ({
  live: sqlite.prepare<[string], PodRow>(
    `SELECT account, pod_id AS podId, name, status, cost_per_hr AS costPerHr, gpu_type_id AS gpuTypeId,
       gpu_count AS gpuCount, cpu_type_id AS cpuTypeId, cloud, data_center_id AS dataCenterId,
       cluster_id AS clusterId, cluster_role AS clusterRole, volume_gb AS volumeGb,
       network_volume_id AS networkVolumeId, env, actions, locked, created_at AS createdAt, started_at AS startedAt,
       first_seen_at AS firstSeenAt, last_seen_at AS lastSeenAt, gone_at AS goneAt
     FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id`,
  ),
  poll: sqlite.prepare<[string], PodListPoll>(
    'SELECT seen_at AS seenAt, synced_at AS syncedAt FROM pod_lists WHERE account = ?',
  ),
  lastSeen: sqlite.prepare<[string], { podId: string; lastSeenAt: number }>(
    `SELECT p.pod_id AS podId,
       CASE WHEN p.gone_at IS NULL AND p.last_seen_at = l.synced_at THEN l.seen_at ELSE p.last_seen_at END AS lastSeenAt
     FROM pods p LEFT JOIN pod_lists l ON l.account = p.account WHERE p.account = ?`,
  ),
  version: Number.NaN,
  byAccount: new Map<string, Listed>(),
  /** pod_lists rows as this connection last committed them (see podListWriting). */
  polls: new Map<string, PodListPoll>(),
}));

/** The cache, emptied first if another connection (the CLI) committed since it was filled. */
function current(database: Database) {
  const cache = lists(database);
  const version = dataVersion(database);
  if (version !== cache.version) {
    cache.version = version;
    cache.byAccount.clear();
    cache.polls.clear();
  }
  return cache;
}

function read(database: Database, account: string): Listed {
  const stored = new Map<string, { record: PodRecord; env: string; actions: string }>();
  let latest = Number.NEGATIVE_INFINITY;
  let common: number | undefined;
  const rows = lists(database).live.all(account);
  const records = rows.map(({ lastSeenAt, ...row }, index) => {
    latest = Math.max(latest, lastSeenAt);
    if (index === 0) common = lastSeenAt;
    else if (common !== lastSeenAt) common = undefined;
    const record: PodRecord = {
      ...row,
      env: JSON.parse(row.env) as Record<string, string>,
      actions: JSON.parse(row.actions) as string[],
    };
    stored.set(row.podId, { record, env: row.env, actions: row.actions });
    return record;
  });
  return { records, stored, lastSeenAt: { latest, common } };
}

/** The account's live Pods as cached (outside a transaction) or as read now (inside one). */
function listedOf(database: Database, account: string): Listed {
  // The open transaction may still roll back: read what it sees, keep nothing.
  if (database.sqlite.inTransaction) return read(database, account);
  const cache = current(database);
  let listed = cache.byAccount.get(account);
  if (listed === undefined) {
    listed = read(database, account);
    cache.byAccount.set(account, listed);
  }
  return listed;
}

/**
 * The account's Pods not gone, by id. Read by the idle and waste rules and several metric
 * families every minute, and kept across a poll of the Pod list that changed nothing (the usual
 * minute at 2,000 Pods: re-reading and parsing them cost a third of the idle tick). Shared
 * between callers: do not modify.
 */
export function livePods(database: Database, account: string): readonly PodRecord[] {
  return listedOf(database, account).records;
}

/** The account's pod_lists row, if a poll wrote one. */
export function podListPoll(database: Database, account: string): PodListPoll | undefined {
  const cache = current(database);
  const kept = cache.polls.get(account);
  if (kept !== undefined) return kept;
  return cache.poll.get(account);
}

/**
 * Called by the Pod list sync once it has written the account's pod_lists row, in its
 * transaction, which it does every minute: the row is kept once that commits, so the next poll
 * reads it from memory. Until then, after a rollback, or if another connection has committed
 * meanwhile, readers read the table.
 */
export function podListWritten(database: Database, account: string, poll: PodListPoll): void {
  const cache = current(database);
  cache.polls.delete(account);
  // Read while this transaction holds the write lock: no other commit comes between it and ours.
  const version = dataVersion(database);
  database.afterCommit(() => {
    const after = current(database);
    if (after.version === version) after.polls.set(account, poll);
  });
}

/**
 * The latest last_seen_at of the account's live Pods: when its latest Pod poll saw them (undefined
 * without live Pods). A row whose last_seen_at is pod_lists' synced_at was seen by every poll
 * since, so at pod_lists' seen_at.
 */
export function podListPolledAt(database: Database, account: string): number | undefined {
  const { records, lastSeenAt } = listedOf(database, account);
  if (records.length === 0) return undefined;
  const poll = podListPoll(database, account);
  return poll !== undefined && lastSeenAt.latest === poll.syncedAt ? poll.seenAt : lastSeenAt.latest;
}

/** When a poll last listed each of the account's Pods, gone ones included, by podId (see pod_lists). */
export function podsLastSeenAt(database: Database, account: string): Map<string, number> {
  return new Map(
    lists(database)
      .lastSeen.all(account)
      .map((row) => [row.podId, row.lastSeenAt]),
  );
}

/** What a poll of the Pod list writes: nothing but pod_lists, every live row's last_seen_at, or the Pods. */
export type PodListChange = 'none' | 'seen' | 'changed';

/**
 * Called by the Pod list sync before it writes: what the sync changes. 'none' when the list is
 * the stored live Pods, column for column, and every row was last written by the latest sync
 * (the account's list is kept: the rows do not change); 'seen' when only some rows' last_seen_at
 * would move; 'changed' otherwise. The list is dropped unless 'none'.
 */
export function podListSyncing(
  database: Database,
  account: string,
  items: readonly PodInput[],
  unreadable: UnreadableItems | undefined,
  poll: PodListPoll | undefined,
): PodListChange {
  const cache = current(database);
  const listed = cache.byAccount.get(account);
  if (listed === undefined) return 'changed';
  if (listed.records.length === 0 || !onlySeen(listed, items, unreadable)) {
    cache.byAccount.delete(account);
    return 'changed';
  }
  if (poll !== undefined && listed.lastSeenAt.common === poll.syncedAt) return 'none';
  cache.byAccount.delete(account);
  return 'seen';
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
