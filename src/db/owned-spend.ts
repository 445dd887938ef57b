import { resourceNames } from './names.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { podEnvsSync } from './pod-env.js';
import type { BillingKind, BucketSize } from './schema.js';
import { spendByResourceSync } from './spend.js';

/** The billing kinds that bill resources someone can own; `endpoints` is Public Endpoints, billed to the account. */
export const OWNED_KINDS = [
  'pods',
  'serverless',
  'network_volumes',
  'clusters',
  'endpoints',
] as const satisfies readonly BillingKind[];

/** One billed resource's spend in a period, with what ownership reads of it. */
export interface OwnedSpend {
  kind: (typeof OWNED_KINDS)[number];
  resourceId: string;
  /** Its stored name; null when none was ever stored (Public Endpoints, a resource never listed). */
  name: string | null;
  /** A Pod's stored env (the kept keys); null for other kinds. */
  env: Readonly<Record<string, string>> | null;
  /** Billed in [periodStart, periodEnd), as the budgets read it. */
  amount: number;
}

export interface OwnedSpendQuery {
  account: string;
  bucketSize: BucketSize;
  periodStart: number;
  periodEnd: number;
}

/**
 * Every resource billed in the period, of every owned kind, with its name and env, in one read
 * transaction: who owns what is config (`owners`), so grouping by team happens after this read.
 */
function ownedSpendSync(database: Database, query: OwnedSpendQuery): OwnedSpend[] {
  return database.transaction(() => {
    const envs = podEnvsSync(database, query.account);
    return OWNED_KINDS.flatMap((kind) => {
      const names = resourceNames(database, query.account, kind);
      const rows = spendByResourceSync(database, { ...query, kind, windowStart: query.periodStart });
      return rows.map((row) => ({
        kind,
        resourceId: row.resourceId,
        name: names.get(row.resourceId) ?? null,
        env: kind === 'pods' ? (envs.get(row.resourceId) ?? null) : null,
        amount: row.periodAmount,
      }));
    });
  });
}

export const ownedSpend = outsideTransaction(ownedSpendSync);
