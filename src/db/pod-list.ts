import { getTableColumns } from 'drizzle-orm';
import type { LatestInput, UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import { pods } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * A live Pod as stored. Without last_seen_at, which a poll that changes nothing no longer writes
 * to the rows (see pod_lists): the time of the account's latest poll is podListPolledAt.
 */
export type PodRecord = Omit<typeof pods.$inferSelect, 'lastSeenAt'>;
export type PodInput = LatestInput<typeof pods>;

type PodRow = Omit<PodRecord, 'env' | 'actions'> & { env: string; actions: string; lastSeenAt: number };

/** The columns a sync takes from the API as they are (env and actions are compared as stored JSON). */
const plainColumns = Object.keys(getTableColumns(pods)).filter(
  (key) => !['account', 'firstSeenAt', 'lastSeenAt', 'goneAt', 'env', 'actions'].includes(key),
) as Array<keyof PodInput & keyof PodRecord>;

/** An account's pod_lists row. */
export interface PodListPoll {
  seenAt: number;
  syncedAt: number;
}

const statements = perDatabase(({ sqlite }) => ({
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
  // A row whose last_seen_at is pod_lists' synced_at was seen by every poll since, so at seen_at.
  polledAt: sqlite
    .prepare<[string], number | null>(
      `SELECT CASE WHEN max(p.last_seen_at) = l.synced_at THEN l.seen_at ELSE max(p.last_seen_at) END
       FROM pods p LEFT JOIN pod_lists l ON l.account = p.account WHERE p.account = ? AND p.gone_at IS NULL`,
    )
    .pluck(),
  lastSeen: sqlite.prepare<[string], { podId: string; lastSeenAt: number }>(
    `SELECT p.pod_id AS podId,
       CASE WHEN p.gone_at IS NULL AND p.last_seen_at = l.synced_at THEN l.seen_at ELSE p.last_seen_at END AS lastSeenAt
     FROM pods p LEFT JOIN pod_lists l ON l.account = p.account WHERE p.account = ?`,
  ),
}));

function toRecord({ lastSeenAt: _, ...row }: PodRow): PodRecord {
  return {
    ...row,
    env: JSON.parse(row.env) as Record<string, string>,
    actions: JSON.parse(row.actions) as string[],
  };
}

/** The account's Pods not gone, by id. */
export function livePods(database: Database, account: string): readonly PodRecord[] {
  return statements(database).live.all(account).map(toRecord);
}

/** The account's pod_lists row, if a poll wrote one. */
export function podListPoll(database: Database, account: string): PodListPoll | undefined {
  return statements(database).poll.get(account);
}

/**
 * The latest last_seen_at of the account's live Pods: when its latest Pod poll saw them (undefined
 * without live Pods).
 */
export function podListPolledAt(database: Database, account: string): number | undefined {
  return statements(database).polledAt.get(account) ?? undefined;
}

/** When a poll last listed each of the account's Pods, gone ones included, by podId (see pod_lists). */
export function podsLastSeenAt(database: Database, account: string): Map<string, number> {
  return new Map(
    statements(database)
      .lastSeen.all(account)
      .map((row) => [row.podId, row.lastSeenAt]),
  );
}

/** What a poll of the Pod list writes: nothing but pod_lists, every live row's last_seen_at, or the Pods. */
export type PodListChange = 'none' | 'seen' | 'changed';

/**
 * What a sync of `items` changes, read in the sync's transaction: 'none' when the list is the
 * stored live Pods, column for column, and every row was last written by the latest sync (the
 * rows do not change); 'seen' when only some rows' last_seen_at would move; 'changed' otherwise.
 */
export function podListSyncing(
  database: Database,
  account: string,
  items: readonly PodInput[],
  unreadable: UnreadableItems | undefined,
  poll: PodListPoll | undefined,
): PodListChange {
  // An unreadable item is not upserted: its last_seen_at would differ from the rest.
  if (unreadable !== undefined && (unreadable.anonymous || unreadable.ids.length > 0)) return 'changed';
  const rows = statements(database).live.all(account);
  if (rows.length === 0 || rows.length !== items.length) return 'changed';
  const stored = new Map(rows.map((row) => [row.podId, row]));
  let common: number | undefined = rows[0]?.lastSeenAt;
  for (const row of rows) if (row.lastSeenAt !== common) common = undefined;
  const seen = new Set<string>();
  for (const item of items) {
    const row = stored.get(item.podId);
    if (row === undefined || seen.has(item.podId)) return 'changed';
    seen.add(item.podId);
    for (const key of plainColumns) if (item[key] !== row[key]) return 'changed';
    // The same encoding as the JSON columns' writer, so equal text is an equal row.
    if (JSON.stringify(item.env) !== row.env || JSON.stringify(item.actions) !== row.actions) return 'changed';
  }
  return poll !== undefined && common === poll.syncedAt ? 'none' : 'seen';
}
