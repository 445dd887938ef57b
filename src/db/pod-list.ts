import type { LatestInput, UnreadableItems } from './latest.js';
import type { Database } from './open.js';
import type { pods } from './schema.js';
import { perDatabase } from './statements.js';

/**
 * A live Pod as stored, with the columns read outside the Pod poll. Without last_seen_at, which a
 * poll that changes nothing no longer writes to the rows (see pod_lists): the time of the
 * account's latest poll is podListPolledAt.
 */
export type PodRecord = Omit<typeof pods.$inferSelect, 'lastSeenAt' | 'cpuTypeId' | 'clusterRole' | 'actions'>;
export type PodInput = LatestInput<typeof pods>;

/**
 * The columns a sync takes from the API as they are, with their place in SyncRow (env and actions
 * are compared as stored JSON).
 */
const plainColumns = (
  `podId name status costPerHr gpuTypeId gpuCount cpuTypeId cloud dataCenterId clusterId clusterRole volumeGb
   networkVolumeId env actions locked createdAt startedAt`.split(/\s+/) as Array<keyof PodInput>
).flatMap((key, index) => (key === 'env' || key === 'actions' ? [] : [[key, index] as const]));

/** An account's pod_lists row. */
export interface PodListPoll {
  seenAt: number;
  syncedAt: number;
}

const statements = perDatabase(({ sqlite }) => ({
  /** The live Pods as arrays, in LiveRow's order: what a tick reads (no account, gone_at). */
  liveRecords: sqlite
    .prepare<[string], LiveRow>(
      `SELECT pod_id, name, status, cost_per_hr, gpu_type_id, gpu_count, cloud, data_center_id, cluster_id,
         volume_gb, network_volume_id, env, locked, created_at, started_at, first_seen_at
       FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id`,
    )
    .raw(),
  /** The live Pods as arrays, in SyncRow's order: every column a sync compares. */
  syncRows: sqlite
    .prepare<[string], SyncRow>(
      `SELECT pod_id, name, status, cost_per_hr, gpu_type_id, gpu_count, cpu_type_id, cloud, data_center_id,
         cluster_id, cluster_role, volume_gb, network_volume_id, env, actions, locked, created_at, started_at,
         first_seen_at, last_seen_at
       FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id`,
    )
    .raw(),
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

type SyncRow = [
  podId: string,
  name: string,
  status: string,
  costPerHr: number,
  gpuTypeId: string | null,
  gpuCount: number | null,
  cpuTypeId: string | null,
  cloud: string | null,
  dataCenterId: string | null,
  clusterId: string | null,
  clusterRole: string | null,
  volumeGb: number | null,
  networkVolumeId: string | null,
  env: string,
  actions: string,
  locked: number,
  createdAt: number | null,
  startedAt: number | null,
  firstSeenAt: number,
  lastSeenAt: number,
];

type LiveRow = [
  podId: string,
  name: string,
  status: string,
  costPerHr: number,
  gpuTypeId: string | null,
  gpuCount: number | null,
  cloud: string | null,
  dataCenterId: string | null,
  clusterId: string | null,
  volumeGb: number | null,
  networkVolumeId: string | null,
  env: string,
  locked: number,
  createdAt: number | null,
  startedAt: number | null,
  firstSeenAt: number,
];

/**
 * The account's Pods not gone, by id, for store functions reading them in their own transaction
 * (livePods in pods.ts for everyone else). Read as arrays and built as one literal: every record
 * has the same shape, keys in the table's column order, and only the columns a record holds are
 * read (the account is the one asked for, goneAt is null for a live Pod).
 */
export function livePodRows(database: Database, account: string): readonly PodRecord[] {
  return statements(database)
    .liveRecords.all(account)
    .map((row) => ({
      account,
      podId: row[0],
      name: row[1],
      status: row[2],
      costPerHr: row[3],
      gpuTypeId: row[4],
      gpuCount: row[5],
      cloud: row[6],
      dataCenterId: row[7],
      clusterId: row[8],
      volumeGb: row[9],
      networkVolumeId: row[10],
      env: JSON.parse(row[11]) as Record<string, string>,
      locked: row[12],
      createdAt: row[13],
      startedAt: row[14],
      firstSeenAt: row[15],
      goneAt: null,
    }));
}

/** The account's pod_lists row, if a poll wrote one. */
export function podListPoll(database: Database, account: string): PodListPoll | undefined {
  return statements(database).poll.get(account);
}

/**
 * The latest last_seen_at of the account's live Pods: when its latest Pod poll saw them (undefined
 * without live Pods).
 */
export async function podListPolledAt(database: Database, account: string): Promise<number | undefined> {
  return statements(database).polledAt.get(account) ?? undefined;
}

/** When a poll last listed each of the account's Pods, gone ones included, by podId (see pod_lists). */
export async function podsLastSeenAt(database: Database, account: string): Promise<Map<string, number>> {
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
  const rows = statements(database).syncRows.all(account);
  if (rows.length === 0 || rows.length !== items.length) return 'changed';
  const stored = new Map(rows.map((row) => [row[0], row]));
  let common: number | undefined = rows[0]?.[19];
  for (const row of rows) if (row[19] !== common) common = undefined;
  const seen = new Set<string>();
  for (const item of items) {
    const row = stored.get(item.podId);
    if (row === undefined || seen.has(item.podId)) return 'changed';
    seen.add(item.podId);
    for (const [key, index] of plainColumns) if (item[key] !== row[index]) return 'changed';
    // The same encoding as the JSON columns' writer, so equal text is an equal row.
    if (JSON.stringify(item.env) !== row[13] || JSON.stringify(item.actions) !== row[14]) return 'changed';
  }
  return poll !== undefined && common === poll.syncedAt ? 'none' : 'seen';
}
