import {
  type AlertRecord,
  type FlapRecord,
  firingAlertsButDetails,
  flapsOf,
  openFlaps,
  resolvedAlertsById,
  updateFlap,
} from './alerts.js';
import { type OutboxRow, type QueuedRow, queueRow } from './channel-outbox.js';
import { type LogRecord, notificationLogAt, putLogEntry } from './notifications.js';
import type { Database } from './open.js';
import { planningInputs } from './plan-version.js';
import { perDatabase } from './statements.js';

const statements = perDatabase(({ sqlite }) => ({
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

/** What the pipeline plans on (alerts/notify.ts), read after planningState gave their count. */
export interface NotifyInputs {
  /** Firing episodes, without their details (rewritten every tick, needed only to render a message). */
  firing: AlertRecord[];
  /** Each channel's live notification log, in the order of the channels asked for. */
  logs: Map<string, LogRecord>[];
  /** Episodes a log announced that have resolved since. */
  resolved: AlertRecord[];
  /** Every flap of the firing and resolved episodes' keys. */
  flaps: FlapRecord[];
  /** Open flaps not told yet. */
  unnoticed: FlapRecord[];
}

export async function readNotifyInputs(
  database: Database,
  now: number,
  channels: readonly string[],
): Promise<NotifyInputs> {
  const firing = await firingAlertsButDetails(database);
  const logs: NotifyInputs['logs'] = [];
  for (const channel of channels) logs.push(await notificationLogAt(database, now, channel));
  const announced = [...new Set(logs.flatMap((log) => [...log.values()].flatMap((row) => row.firing)))];
  const resolved = (await resolvedAlertsById(database, announced)).filter((record) => record.firedAt !== null);
  const flaps = await flapsOf(database, [...new Set([...firing, ...resolved].map((alert) => alert.key))]);
  const unnoticed = [...(await openFlaps(database)).values()].filter((flap) => flap.noticedAt === null);
  return { firing, logs, resolved, flaps, unnoticed };
}

/** A message the pipeline decided, with the log entry of its group (none for a notice). */
export interface PlannedMessage {
  row: QueuedRow;
  log?: LogRecord;
}

/**
 * Writes what one planning decided, in one transaction: the messages in order with their groups'
 * log entries, the flaps told marked noticed at `now`, and the quiet plan kept (or the one kept
 * forgotten, when `forget`). Refuses (undefined, nothing written) when the planning inputs
 * changed since `version` was read: another writer queued, resolved or silenced meanwhile, and a
 * plan made before could send a message twice or one that is no longer due.
 */
export async function writeNotifications(
  database: Database,
  version: string,
  planned: {
    messages: readonly PlannedMessage[];
    noticed: readonly FlapRecord[];
    now: number;
    quiet?: QuietPlanRecord;
    forget: boolean;
  },
): Promise<OutboxRow[] | undefined> {
  return database.transaction(() => {
    if (planningInputs(database) !== version) return undefined;
    const rows = planned.messages.map(({ row, log }) => {
      const queued = queueRow(database, row);
      if (log) putLogEntry(database, log, row.channel);
      return queued;
    });
    for (const flap of planned.noticed) updateFlap(database, flap.id, { noticedAt: planned.now });
    if (planned.quiet !== undefined || planned.forget) keepQuietPlan(database, planned.quiet);
    return rows;
  });
}

/** Keeps `plan` as the last plan that decided nothing, or forgets the one kept (undefined). */
function keepQuietPlan(database: Database, plan: QuietPlanRecord | undefined): void {
  statements(database).keepQuiet.run(
    plan === undefined ? null : Number(plan.inputs),
    plan?.settings ?? null,
    plan?.from ?? null,
    plan === undefined || !Number.isFinite(plan.until) ? null : plan.until,
  );
}
