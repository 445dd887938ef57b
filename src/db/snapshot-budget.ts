import { getBackfillSync } from './billing.js';
import type { ClusterRecord } from './clusters.js';
import { resourceNames } from './names.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { podEnvsSync } from './pod-env.js';
import type { PodRecord } from './pods.js';
import { type BillingKind, type BucketSize, billingKinds } from './schema.js';
import type { EndpointRecord } from './serverless.js';
import { type BucketReads, type ResourceSpend, type SpendQuery, spendByResourceSync } from './spend.js';
import { perDatabase } from './statements.js';
import type { NetworkVolumeRecord } from './volumes.js';

/** What a budget reads of a live Pod: what it costs now and since when. */
export type BudgetPod = Pick<
  PodRecord,
  'podId' | 'clusterId' | 'costPerHr' | 'volumeGb' | 'status' | 'startedAt' | 'firstSeenAt'
>;
export type BudgetCluster = Pick<ClusterRecord, 'clusterId' | 'createdAt' | 'firstSeenAt'>;
export type BudgetEndpoint = Pick<EndpointRecord, 'endpointId' | 'firstSeenAt'>;
export type BudgetNetworkVolume = Pick<NetworkVolumeRecord, 'networkVolumeId' | 'sizeGb' | 'type' | 'firstSeenAt'>;

/** One account's resources that run (and cost) now: the columns the budget rule reads. */
export interface LiveResources {
  pods: readonly BudgetPod[];
  clusters: readonly BudgetCluster[];
  endpoints: readonly BudgetEndpoint[];
  networkVolumes: readonly BudgetNetworkVolume[];
}

/** What the budget rule reads of one account's inventory: what runs now, and every name ever seen. */
export interface BudgetResources extends LiveResources {
  /** The name of every resource of a kind ever seen (gone ones too), by id. */
  names: ReadonlyMap<BillingKind, ReadonlyMap<string, string>>;
  /** Every Pod's stored env by pod id (gone ones too), read only for budgets that choose by owner or team. */
  env?: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/**
 * The live rows of each inventory table, ordered by id as the inventory reads give them, only the
 * budget's columns. SQL text: drizzle's mapping of every live Pod's row costs as much as reading
 * it, and so do better-sqlite3's row objects; a Pod's row comes as an array made into its object here.
 */
const live = perDatabase(({ sqlite }) => ({
  pods: sqlite
    .prepare<[string], [string, string | null, number, number | null, string, number | null, number]>(
      `SELECT pod_id, cluster_id, cost_per_hr, volume_gb, status, started_at, first_seen_at
       FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id`,
    )
    .raw(),
  clusters: sqlite.prepare<[string], BudgetCluster>(
    `SELECT cluster_id AS clusterId, created_at AS createdAt, first_seen_at AS firstSeenAt
     FROM clusters WHERE account = ? AND gone_at IS NULL ORDER BY cluster_id`,
  ),
  endpoints: sqlite.prepare<[string], BudgetEndpoint>(
    `SELECT endpoint_id AS endpointId, first_seen_at AS firstSeenAt
     FROM endpoints WHERE account = ? AND gone_at IS NULL ORDER BY endpoint_id`,
  ),
  networkVolumes: sqlite.prepare<[string], BudgetNetworkVolume>(
    `SELECT network_volume_id AS networkVolumeId, size_gb AS sizeGb, type, first_seen_at AS firstSeenAt
     FROM network_volumes WHERE account = ? AND gone_at IS NULL ORDER BY network_volume_id`,
  ),
}));

/** The account's live resources; `pods` as the caller read them (the tick's snapshot), else read here. */
function readLiveResourcesSync(database: Database, account: string, pods?: readonly BudgetPod[]): LiveResources {
  const s = live(database);
  return {
    pods:
      pods ??
      s.pods.all(account).map(([podId, clusterId, costPerHr, volumeGb, status, startedAt, firstSeenAt]) => ({
        podId,
        clusterId,
        costPerHr,
        volumeGb,
        status,
        startedAt,
        firstSeenAt,
      })),
    clusters: s.clusters.all(account),
    endpoints: s.endpoints.all(account),
    networkVolumes: s.networkVolumes.all(account),
  };
}

export const readLiveResources = outsideTransaction(readLiveResourcesSync);

function budgetResources(
  database: Database,
  account: string,
  pods: readonly BudgetPod[] | undefined,
  withEnv: boolean,
): BudgetResources {
  return {
    ...readLiveResourcesSync(database, account, pods),
    names: new Map(billingKinds.map((kind) => [kind, resourceNames(database, account, kind)])),
    ...(withEnv ? { env: podEnvsSync(database, account) } : {}),
  };
}

/** The key of an account and billing kind in `billedSince`. */
export function billedKey(account: string, kind: BillingKind): string {
  return `${account}\u0000${kind}`;
}

/** Where each account's stored billing history of each kind begins (absent: not read yet). */
function billedSince(
  database: Database,
  accounts: readonly string[],
  bucketSize: BucketSize,
): ReadonlyMap<string, number> {
  const since = new Map<string, number>();
  for (const account of accounts) {
    for (const kind of billingKinds) {
      const start = getBackfillSync(database, { account, kind, bucketSize })?.cursorStartTime;
      if (start !== undefined) since.set(billedKey(account, kind), start);
    }
  }
  return since;
}

/** The key of a spend query in `BudgetReads.spend`. */
export function spendKey(query: SpendQuery): string {
  const { account, kind, bucketSize, periodStart, periodEnd, windowStart } = query;
  return `${account}\u0000${kind}\u0000${bucketSize}\u0000${periodStart}\u0000${periodEnd}\u0000${windowStart}`;
}

/** The spend per resource of each query (queries alike are read once, and so are their like bucket reads). */
function spendOf(database: Database, queries: readonly SpendQuery[]): ReadonlyMap<string, readonly ResourceSpend[]> {
  const spend = new Map<string, readonly ResourceSpend[]>();
  const reads: BucketReads = new Map();
  for (const query of queries) {
    const key = spendKey(query);
    if (!spend.has(key)) spend.set(key, spendByResourceSync(database, query, reads));
  }
  return spend;
}

/** What the budget rule reads of the accounts at one instant. */
export interface BudgetReads {
  /** Where each account's billing history of a kind begins, by `billedKey`. */
  billedSince: ReadonlyMap<string, number>;
  /** The answer to every spend query asked, by `spendKey`. */
  spend: ReadonlyMap<string, readonly ResourceSpend[]>;
  /** Each account's live resources and names. */
  resources: ReadonlyMap<string, BudgetResources>;
}

/**
 * The budget rule's reads in one read transaction; `queriesOf` is given where each account's
 * billing history begins, as the rule's periods and windows depend on it.
 */
export async function readBudgetSnapshot(
  database: Database,
  read: {
    accounts: readonly string[];
    bucketSize: BucketSize;
    queriesOf: (billedSince: ReadonlyMap<string, number>) => readonly SpendQuery[];
    pods?: (account: string) => readonly BudgetPod[] | undefined;
    /** Whether to read every Pod's stored env (a budget chooses its resources by owner or team). */
    withEnv?: boolean;
  },
): Promise<BudgetReads> {
  const { accounts, bucketSize, queriesOf, pods, withEnv = false } = read;
  return database.transaction(() => {
    const since = billedSince(database, accounts, bucketSize);
    return {
      billedSince: since,
      spend: spendOf(database, queriesOf(since)),
      resources: new Map(
        accounts.map((account) => [account, budgetResources(database, account, pods?.(account), withEnv)]),
      ),
    };
  });
}
