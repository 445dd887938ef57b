import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/** Stored env as [pod id, JSON text]: only the keys the Pod collector keeps (ownership, the opt-out flag). */
const envs = perDatabase(({ sqlite }) =>
  sqlite.prepare<[string], [string, string]>('SELECT pod_id, env FROM pods WHERE account = ?').raw(),
);

/**
 * The stored env of every Pod of the account ever seen (gone ones too, as billing names them
 * for the rest of their month), by pod id: what ownership reads besides a Pod's name. Used
 * inside a store function's own read transaction.
 */
export function podEnvsSync(
  database: Database,
  account: string,
): ReadonlyMap<string, Readonly<Record<string, string>>> {
  return new Map(
    envs(database)
      .all(account)
      .map(([podId, env]) => [podId, JSON.parse(env) as Record<string, string>]),
  );
}
