import type { Database } from './open.js';
import { perDatabase } from './statements.js';

const count = perDatabase(({ sqlite }) =>
  sqlite.prepare<[], number>('SELECT n FROM plan_changes WHERE id = 1').pluck(),
);

/**
 * A fingerprint of everything the email pipeline's planning reads from the database
 * (alerts/notify.ts): the count of plan_changes, which triggers move with every change to those
 * inputs by any connection, in the transaction that makes it (migration 0024 lists them). Equal
 * fingerprints mean equal inputs.
 */
export function planningInputs(database: Database): string {
  const n = count(database).get();
  if (n === undefined) throw new Error('read planning inputs: plan_changes has no row');
  return String(n);
}
