import { backfillOf } from './billing.js';
import { type ClusterRecord, liveClusters } from './clusters.js';
import { resourceNames } from './names.js';
import type { Database } from './open.js';
import type { PodRecord } from './pods.js';
import type { BillingKind, BucketSize } from './schema.js';
import { type EndpointRecord, liveEndpoints } from './serverless.js';
import { type ResourceSpend, type SpendQuery, spendByResource } from './spend.js';
import { liveNetworkVolumes, type NetworkVolumeRecord } from './volumes.js';

/** Every billing kind a budget may be scoped to: the whole account's `/billing`, then each route. */
export const BUDGET_KINDS: readonly BillingKind[] = [
  'account',
  'pods',
  'serverless',
  'network_volumes',
  'clusters',
  'endpoints',
];

/** One account's resources that run (and cost) now. */
export interface LiveResources {
  pods: readonly PodRecord[];
  clusters: readonly ClusterRecord[];
  endpoints: readonly EndpointRecord[];
  networkVolumes: readonly NetworkVolumeRecord[];
}

/** What the budget rule reads of one account's inventory: what runs now, and every name ever seen. */
export interface BudgetResources extends LiveResources {
  /** The name of every resource of a kind ever seen (gone ones too), by id. */
  names: ReadonlyMap<BillingKind, ReadonlyMap<string, string>>;
}

/** The account's live resources; `pods` as the caller read them (the tick's snapshot holds them). */
export function readLiveResources(database: Database, account: string, pods: readonly PodRecord[]): LiveResources {
  return {
    pods,
    clusters: liveClusters(database, account),
    endpoints: liveEndpoints(database, account),
    networkVolumes: liveNetworkVolumes(database, account),
  };
}

export function readBudgetResources(database: Database, account: string, pods: readonly PodRecord[]): BudgetResources {
  return {
    ...readLiveResources(database, account, pods),
    names: new Map(BUDGET_KINDS.map((kind) => [kind, resourceNames(database, account, kind)])),
  };
}

/** The key of an account and billing kind in `billedSince`. */
export function billedKey(account: string, kind: BillingKind): string {
  return `${account}\u0000${kind}`;
}

/** Where each account's stored billing history of each kind begins (absent: not read yet). */
export function readBilledSince(
  database: Database,
  accounts: readonly string[],
  bucketSize: BucketSize,
): ReadonlyMap<string, number> {
  const since = new Map<string, number>();
  for (const account of accounts) {
    for (const kind of BUDGET_KINDS) {
      const start = backfillOf(database, { account, kind, bucketSize })?.cursorStartTime;
      if (start !== undefined) since.set(billedKey(account, kind), start);
    }
  }
  return since;
}

/** The key of a spend query in `readSpend`'s answer. */
export function spendKey(query: SpendQuery): string {
  const { account, kind, bucketSize, periodStart, periodEnd, windowStart } = query;
  return `${account}\u0000${kind}\u0000${bucketSize}\u0000${periodStart}\u0000${periodEnd}\u0000${windowStart}`;
}

/** The spend per resource of each query (queries alike are read once). */
export function readSpend(
  database: Database,
  queries: readonly SpendQuery[],
): ReadonlyMap<string, readonly ResourceSpend[]> {
  const spend = new Map<string, readonly ResourceSpend[]>();
  for (const query of queries) {
    const key = spendKey(query);
    if (!spend.has(key)) spend.set(key, spendByResource(database, query));
  }
  return spend;
}
