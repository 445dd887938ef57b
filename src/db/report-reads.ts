import type { BucketSize } from '../buckets.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { BillingKind } from './schema.js';
import { perDatabase } from './statements.js';

/** One stored billing bucket, as `podwarden report` sums it. */
export interface BilledBucket {
  account: string;
  kind: BillingKind;
  resourceId: string;
  startTime: number;
  totalAmount: number;
}

/** A resource as the report names it: its name and (Pods only) its stored env. */
export interface NamedResource {
  name: string;
  env: Record<string, string> | null;
}

/** One stop decided, as the report counts it. */
export interface DecidedStop {
  account: string;
  podId: string;
  podName: string;
  decidedAt: number;
  dryRun: boolean;
}

const statements = perDatabase(({ sqlite }) => ({
  // The key leads with (account, kind, bucket_size, start_time): one range per account and kind.
  buckets: sqlite.prepare<[string, BillingKind, BucketSize, number, number], BilledBucket>(
    `SELECT account, kind, resource_id AS resourceId, start_time AS startTime, total_amount AS totalAmount
     FROM billing_records WHERE account = ? AND kind = ? AND bucket_size = ? AND start_time >= ? AND start_time < ?
     ORDER BY start_time, resource_id`,
  ),
  names: sqlite.prepare<[], { account: string; kind: BillingKind; id: string; name: string; env: string | null }>(
    `SELECT account, 'pods' AS kind, pod_id AS id, name, env FROM pods
     UNION ALL SELECT account, 'clusters', cluster_id, name, NULL FROM clusters
     UNION ALL SELECT account, 'serverless', endpoint_id, name, NULL FROM endpoints
     UNION ALL SELECT account, 'network_volumes', network_volume_id, name, NULL FROM network_volumes`,
  ),
  stops: sqlite.prepare<[number, number], Omit<DecidedStop, 'dryRun'> & { dryRun: number }>(
    `SELECT account, pod_id AS podId, pod_name AS podName, decided_at AS decidedAt, dry_run AS dryRun
     FROM action_receipts WHERE decided_at >= ? AND decided_at < ? AND decision IN ('stopped', 'dry_run')
     ORDER BY decided_at, id`,
  ),
}));

/**
 * The stored billing buckets of `accounts` and `kinds` whose start lies in [from, to), of one
 * bucket size: the amounts as the API reported them.
 */
export const billedBuckets = outsideTransaction(
  (
    database: Database,
    query: {
      accounts: readonly string[];
      kinds: readonly BillingKind[];
      bucketSize: BucketSize;
      from: number;
      to: number;
    },
  ): BilledBucket[] => {
    const read = statements(database);
    const rows: BilledBucket[] = [];
    for (const account of query.accounts) {
      for (const kind of query.kinds)
        rows.push(...read.buckets.all(account, kind, query.bucketSize, query.from, query.to));
    }
    return rows;
  },
);

/** Every resource ever listed, keyed `account/kind/id`: what the report names and groups by. */
export const namedResources = outsideTransaction((database: Database): Map<string, NamedResource> => {
  const named = new Map<string, NamedResource>();
  for (const row of statements(database).names.all()) {
    const env = row.env === null ? null : (JSON.parse(row.env) as Record<string, string>);
    named.set(resourceKey(row.account, row.kind, row.id), { name: row.name, env });
  }
  return named;
});

/** The key namedResources uses. */
export const resourceKey = (account: string, kind: BillingKind, id: string) => `${account}/${kind}/${id}`;

/** Every stop decided in [from, to) (sent or dry run), in time order. */
export const stopsDecidedIn = outsideTransaction(
  (database: Database, window: { from: number; to: number }): DecidedStop[] =>
    statements(database)
      .stops.all(window.from, window.to)
      .map((row) => ({ ...row, dryRun: row.dryRun === 1 })),
);
