import { afterEach, describe, expect, it } from 'vitest';
import { alertsById, firedEpisodesOf, firingAlerts, firingAlertsButDetails, openAlertOf } from '../../src/db/alerts.js';
import { type Database, openDatabase } from '../../src/db/open.js';
import type { Finding } from '../../src/rules/finding.js';
import { openAlerts } from '../helpers/store.js';
import { type AlertBench, alertBench, finding, MINUTE, START } from './support.js';

let bench: AlertBench;
const others: Database[] = [];
afterEach(() => {
  for (const other of others.splice(0)) other.close();
  bench.close();
});

const key = 'waste:sim:volume-unmounted:vol-1';
/** A finding whose figures move every tick, as the rules' do (evaluatedAt, paid so far). */
const moving = (at: number): Finding =>
  finding(key, {
    summary: `vol-1 unmounted, $${(at - START) / MINUTE}.00 so far`,
    details: { evaluatedAt: at, paid: (at - START) / MINUTE, nested: { at: [at, null] } },
  });

/** What a reader gets of the figures: summary, details and as of when. */
const figures = (alert: { summary: string; details: unknown; lastSeenAt: number } | undefined) =>
  alert && { summary: alert.summary, details: alert.details, lastSeenAt: alert.lastSeenAt };
const expected = (at: number) => ({ summary: moving(at).summary, details: moving(at).details, lastSeenAt: at });

/** Another connection to the daemon's file, as another process (the sqlite3 shell) would read it. */
function otherProcess(): Database {
  const other = openDatabase(bench.config.database.path, { readonly: true });
  others.push(other);
  return other;
}

async function seenFor(ticks: number): Promise<number> {
  for (let i = 0; i < ticks; i++) {
    await bench.tick([moving(bench.clock.now())]);
    await bench.clock.advanceBy(MINUTE);
  }
  return bench.clock.now() - MINUTE;
}

describe("an open alert's moving figures", () => {
  it("reach every read at once, the daemon's connection and another process alike", async () => {
    bench = alertBench();
    const last = await seenFor(3);
    const [alert] = await openAlerts(bench.db);
    if (!alert) throw new Error('no open alert');
    const reads = [
      alert,
      ...(await firingAlerts(bench.db)),
      ...(await alertsById(bench.db, [alert.id])),
      await openAlertOf(bench.db, key),
      ...(await firedEpisodesOf(bench.db, key, START)),
    ];
    expect(reads).toHaveLength(5);
    for (const read of reads) expect(figures(read)).toEqual(expected(last));
    const [planned] = await firingAlertsButDetails(bench.db);
    expect({ summary: planned?.summary, lastSeenAt: planned?.lastSeenAt }).toEqual({
      summary: moving(last).summary,
      lastSeenAt: last,
    });
    // Written by the tick that saw them: another process reads what the daemon reads.
    expect(figures((await openAlerts(otherProcess()))[0])).toEqual(expected(last));
  });

  it('stay those of the last tick that saw the alert, through a tick that does not and a restart', async () => {
    bench = alertBench((config) => {
      config.alerts.resolveAfter.wasteMs = 10 * MINUTE;
    });
    const last = await seenFor(3);
    await bench.tick([]);
    expect(figures((await openAlerts(otherProcess()))[0])).toEqual(expected(last));
    expect(figures((await openAlerts(bench.db))[0])).toEqual(expected(last));
    await bench.clock.advanceBy(MINUTE);
    const later = await seenFor(2);
    expect(figures((await openAlerts(otherProcess()))[0])).toEqual(expected(later));
    bench.reopen();
    expect(figures((await openAlerts(bench.db))[0])).toEqual(expected(later));
  });

  it('stay those of the last committed tick when a tick rolls back', async () => {
    bench = alertBench();
    const last = await seenFor(2);
    const now = bench.clock.now();
    // JSON.stringify throws on a BigInt: the new alert's insert fails after the open one was refreshed.
    const broken = finding('waste:sim:volume-unmounted:vol-2', { details: { paid: 1n } });
    await expect(bench.tick([moving(now), broken])).rejects.toThrow(/BigInt/);
    expect(figures((await openAlerts(bench.db))[0])).toEqual(expected(last));
    expect(figures((await openAlerts(otherProcess()))[0])).toEqual(expected(last));
  });
});
