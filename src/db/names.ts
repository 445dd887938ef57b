import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import type { BillingKind } from './schema.js';
import { perDatabase } from './statements.js';

const NAME_SOURCES: Partial<Record<BillingKind, { table: string; id: string }>> = {
  pods: { table: 'pods', id: 'pod_id' },
  serverless: { table: 'endpoints', id: 'endpoint_id' },
  network_volumes: { table: 'network_volumes', id: 'network_volume_id' },
  clusters: { table: 'clusters', id: 'cluster_id' },
};

// Rows as [id, name] arrays: a budget tick reads every Pod's name, and Map takes the pairs as they come.
const nameStatements = perDatabase(({ sqlite }) => {
  const statements = new Map<BillingKind, BetterSqlite3.Statement<[string], [string, string]>>();
  for (const [kind, source] of Object.entries(NAME_SOURCES)) {
    const read = sqlite.prepare<[string], [string, string]>(
      `SELECT ${source.id}, name FROM ${source.table} WHERE account = ?`,
    );
    statements.set(kind as BillingKind, read.raw());
  }
  return statements;
});

/** The name of every resource of a billing kind ever seen (gone ones too), by id. */
export function resourceNames(database: Database, account: string, kind: BillingKind): ReadonlyMap<string, string> {
  return new Map(nameStatements(database).get(kind)?.all(account));
}

const gpuNames = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string], [string, string]>('SELECT gpu_type_id, name FROM gpu_types WHERE account = ?').raw(),
);

/** Display names of the GPU types in an account's catalog, by gpuTypeId. */
export const gpuTypeNames = outsideTransaction(gpuTypeNamesSync);

/** gpuTypeNames, for a store function reading it inside its own (snapshot) transaction. */
export function gpuTypeNamesSync(database: Database, account: string): Map<string, string> {
  return new Map(gpuNames(database).all(account));
}
