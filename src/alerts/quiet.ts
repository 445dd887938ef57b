import type { FlapRecord } from '../db/alerts.js';
import type { LogRecord } from '../db/notifications.js';
import type { QuietPlanRecord } from '../db/plan-inputs.js';
import type { SilenceRecord } from '../db/silences.js';
import type { NotifyAlert } from './alert.js';
import type { AlertSettings } from './settings.js';

/**
 * Whether planning at `now` would decide nothing, as the kept plan (db/plan-inputs.ts) found:
 * planning is a pure function of its inputs (counted by plan_changes), the settings and `now`, and
 * decides the same between two of the times nextPlanChange lists.
 */
export function stillQuiet(
  state: { inputs: string; quiet?: QuietPlanRecord },
  settings: Pick<AlertSettings, 'fingerprint'>,
  now: number,
): boolean {
  const { quiet } = state;
  return (
    quiet !== undefined &&
    quiet.inputs === state.inputs &&
    quiet.settings === settings.fingerprint &&
    now >= quiet.from &&
    now < quiet.until
  );
}

export interface PlanTimes {
  log: Iterable<Pick<LogRecord, 'notifiedAt' | 'expiresAt'>>;
  firing: readonly NotifyAlert[];
  resolved: readonly NotifyAlert[];
  silences: readonly SilenceRecord[];
  flaps: readonly FlapRecord[];
  settings: AlertSettings;
  now: number;
}

/**
 * The first time after `now` at which planning on the same inputs could decide otherwise: a group
 * interval, repeat interval or log entry's expiry running out, a group wait after an alert fired,
 * a silence starting or ending, a flap starting or settling. Each time and the millisecond after
 * it count, so whether a comparison is strict does not matter. Earlier than needed is harmless:
 * planning runs then and finds the next one.
 */
export function nextPlanChange(input: PlanTimes): number {
  const { settings, now } = input;
  let until = Number.POSITIVE_INFINITY;
  const at = (time: number | null) => {
    if (time === null || !Number.isFinite(time)) return;
    if (time > now && time < until) until = time;
    if (time + 1 > now && time + 1 < until) until = time + 1;
  };
  const repeats = new Set<number>();
  for (const alert of [...input.firing, ...input.resolved]) repeats.add(settings.repeatMs(alert.rule));
  for (const entry of input.log) {
    at(entry.notifiedAt + settings.groupIntervalMs);
    for (const repeat of repeats) at(entry.notifiedAt + repeat);
    at(entry.expiresAt);
  }
  for (const alert of input.firing) at(alert.firedAt + settings.groupWaitMs);
  for (const silence of input.silences) {
    at(silence.startsAt);
    at(silence.endsAt);
  }
  for (const flap of input.flaps) {
    at(flap.since);
    at(flap.settledAt);
  }
  return until;
}
