import type { Database } from './open.js';
import { itemFreshness } from './schema.js';
import { perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

const upsert = perDatabase((database) =>
  rowWriter<typeof itemFreshness.$inferInsert>(
    database,
    database.db
      .insert(itemFreshness)
      .values(placeholdersFor(itemFreshness))
      .onConflictDoUpdate(
        replaceOnConflict(itemFreshness, [itemFreshness.account, itemFreshness.kind, itemFreshness.itemId]),
      ),
  ),
);

/** Records that these items of `kind` (e.g. 'endpoint-workers') were fetched at `now`; storeEndpointPoll's part. */
export function markFetched(
  database: Database,
  account: string,
  kind: string,
  itemIds: readonly string[],
  now: number,
): void {
  const statement = upsert(database);
  for (const itemId of itemIds) statement({ account, kind, itemId, lastFetchedAt: now });
}

// Prepared once per database: the rotating collectors ask on every cycle.
const fetchedAt = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[string, string], [string, number]>(
      'SELECT item_id, last_fetched_at FROM item_freshness WHERE account = ? AND kind = ?',
    )
    .raw(),
);

/** When each item of `kind` was last fetched; items never fetched are absent. */
export async function lastFetched(database: Database, account: string, kind: string): Promise<Map<string, number>> {
  return new Map(fetchedAt(database).all(account, kind));
}

/**
 * The candidates in fetch order for a rotating collector: never fetched first, then the stalest;
 * ties keep the candidates' order. Fetching the first N each cycle rotates fairly.
 */
export async function stalestFirst(
  database: Database,
  account: string,
  kind: string,
  candidates: readonly string[],
): Promise<string[]> {
  const fetched = await lastFetched(database, account, kind);
  const age = (itemId: string) => fetched.get(itemId) ?? Number.NEGATIVE_INFINITY;
  return candidates
    .map((itemId, index) => ({ itemId, index }))
    .sort((a, b) => age(a.itemId) - age(b.itemId) || a.index - b.index)
    .map((entry) => entry.itemId);
}
