import type { Database } from './open.js';
import type { BillingKind } from './schema.js';
import { perDatabase } from './statements.js';

const NAME_SOURCES: Partial<Record<BillingKind, { table: string; id: string }>> = {
  pods: { table: 'pods', id: 'pod_id' },
  serverless: { table: 'endpoints', id: 'endpoint_id' },
  network_volumes: { table: 'network_volumes', id: 'network_volume_id' },
  clusters: { table: 'clusters', id: 'cluster_id' },
};

const nameStatements = perDatabase(({ sqlite }) => {
  const statements = new Map<BillingKind, ReturnType<typeof sqlite.prepare<[string], { id: string; name: string }>>>();
  for (const [kind, source] of Object.entries(NAME_SOURCES)) {
    statements.set(
      kind as BillingKind,
      sqlite.prepare(`SELECT ${source.id} AS id, name FROM ${source.table} WHERE account = ?`),
    );
  }
  return statements;
});

/** The name of every resource of a billing kind ever seen (gone ones too), by id. */
export function resourceNames(database: Database, account: string, kind: BillingKind): ReadonlyMap<string, string> {
  const rows = nameStatements(database).get(kind)?.all(account) ?? [];
  return new Map(rows.map((row) => [row.id, row.name]));
}

const gpuNames = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string], { id: string; name: string }>(
    'SELECT gpu_type_id AS id, name FROM gpu_types WHERE account = ?',
  ),
);

/** Display names of the GPU types in an account's catalog, by gpuTypeId. */
export async function gpuTypeNames(database: Database, account: string): Promise<Map<string, string>> {
  return gpuTypeNamesSync(database, account);
}

/** gpuTypeNames, for a store function reading it inside its own (snapshot) transaction. */
export function gpuTypeNamesSync(database: Database, account: string): Map<string, string> {
  return new Map(
    gpuNames(database)
      .all(account)
      .map((row) => [row.id, row.name]),
  );
}
