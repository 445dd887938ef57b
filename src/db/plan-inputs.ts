import type { Database } from './open.js';
import { perDatabase } from './statements.js';

const statements = perDatabase(({ sqlite }) => ({
  count: sqlite.prepare<[], number>('SELECT n FROM plan_changes WHERE id = 1').pluck(),
  state: sqlite
    .prepare<[], [number, number | null, string | null, number | null, number | null]>(
      'SELECT n, quiet_n, quiet_settings, quiet_from, quiet_until FROM plan_changes WHERE id = 1',
    )
    .raw(),
  keepQuiet: sqlite.prepare<[number | null, string | null, number | null, number | null]>(
    'UPDATE plan_changes SET quiet_n = ?, quiet_settings = ?, quiet_from = ?, quiet_until = ? WHERE id = 1',
  ),
}));

/**
 * A fingerprint of everything the email pipeline's planning reads from the database
 * (alerts/notify.ts): the count of plan_changes, which triggers move with every change to those
 * inputs by any connection, in the transaction that makes it (migration 0024 lists them). Equal
 * fingerprints mean equal inputs.
 */
export function planningInputs(database: Database): string {
  const n = statements(database).count.get();
  if (n === undefined) throw new Error('read planning inputs: plan_changes has no row');
  return String(n);
}

/**
 * A plan that decided nothing: the inputs' fingerprint it planned on, its settings' fingerprint,
 * and the times [from, until) between which the same inputs and settings keep deciding nothing.
 */
export interface QuietPlanRecord {
  inputs: string;
  settings: string;
  from: number;
  /** Infinity when no time turns it (only a change of its inputs does). */
  until: number;
}

/** The planning inputs' fingerprint now and the quiet plan kept, if any, in one read. */
export async function planningState(database: Database): Promise<{ inputs: string; quiet?: QuietPlanRecord }> {
  const row = statements(database).state.get();
  if (row === undefined) throw new Error('read planning inputs: plan_changes has no row');
  const [n, quietN, settings, from, until] = row;
  const inputs = String(n);
  if (quietN === null || settings === null || from === null) return { inputs };
  return {
    inputs,
    quiet: { inputs: String(quietN), settings, from, until: until ?? Number.POSITIVE_INFINITY },
  };
}

/** Keeps `plan` as the last plan that decided nothing, or forgets the one kept (undefined). */
export async function keepQuietPlan(database: Database, plan: QuietPlanRecord | undefined): Promise<void> {
  statements(database).keepQuiet.run(
    plan === undefined ? null : Number(plan.inputs),
    plan?.settings ?? null,
    plan?.from ?? null,
    plan === undefined || !Number.isFinite(plan.until) ? null : plan.until,
  );
}
