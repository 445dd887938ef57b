import { RealClock } from '../clock.js';
import { readDaemonClock } from '../db/daemon-clock.js';
import type { Database } from '../db/open.js';

/** Offsets below this are a daemon on the system clock (the record's own millisecond of skew). */
const SYSTEM_CLOCK_SLACK_MS = 60_000;

export interface DaemonNow {
  now: number;
  /** True when the daemon runs on another day than the system's (the demo, `run --clock-start`). */
  scenario: boolean;
}

/**
 * "Now" as the daemon on this database reads it (its recorded offset from the system time), so
 * a snooze of 4h beside the demo lasts 4h of the demo's day. No record: the system time.
 */
export async function daemonNow(database: Database): Promise<DaemonNow> {
  const offsetMs = (await readDaemonClock(database))?.offsetMs ?? 0;
  return { now: new RealClock().now() + offsetMs, scenario: Math.abs(offsetMs) >= SYSTEM_CLOCK_SLACK_MS };
}

/** Appended to a time the commands print, so a scenario's date is not mistaken for a typo. */
export function clockNote(clock: DaemonNow): string {
  return clock.scenario ? " (the daemon's clock)" : '';
}
