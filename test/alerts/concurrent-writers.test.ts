import { afterEach, describe, expect, it } from 'vitest';
import { notify } from '../../src/alerts/notify.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { recordFindings } from '../../src/alerts/state.js';
import { emailRenderer } from '../../src/channels/email.js';
import { openDatabase } from '../../src/db/open.js';
import { openAlerts } from '../helpers/store.js';
import { type AlertBench, alertBench, finding, HOUR, MINUTE } from './support.js';

/**
 * Two writers on one database (two daemons, or a tick and the console), each reading, planning
 * and writing with awaits between: the one that writes second planned on what the first changed,
 * and must see it in its write's transaction and plan again, so nothing is opened, sent or
 * resolved twice.
 */
let bench: AlertBench;
afterEach(() => bench.close());

describe('a writer that changed the alerts between another’s read and write', () => {
  it('is seen by recordFindings, which plans again: one open episode per key', async () => {
    bench = alertBench();
    const other = openDatabase(bench.config.database.path);
    try {
      const settings = alertSettings(bench.config);
      const now = bench.clock.now();
      const findings = [finding('waste:sim:volume-unmounted:vol-1'), finding('waste:sim:stuck-starting:pod-2')];
      await Promise.all([
        recordFindings(bench.db, findings, now, settings),
        recordFindings(other, findings, now, settings),
      ]);
      expect((await openAlerts(bench.db)).map((alert) => alert.key)).toEqual(findings.map((f) => f.key));
      // A resolve planned on episodes the other writer resolved meanwhile is planned again: told once.
      await recordFindings(bench.db, [], now + MINUTE, settings);
      const later = now + HOUR;
      const told = await Promise.all([
        recordFindings(bench.db, [], later, settings),
        recordFindings(other, [], later, settings),
      ]);
      expect(told.flat().map((transition) => [transition.key, transition.state])).toEqual(
        findings.map((f) => [f.key, 'resolved']),
      );
      expect(await openAlerts(bench.db)).toEqual([]);
    } finally {
      other.close();
    }
  });

  it('is seen by notify, which plans again: one message per decision', async () => {
    bench = alertBench();
    const other = openDatabase(bench.config.database.path);
    try {
      const settings = alertSettings(bench.config);
      await recordFindings(bench.db, [finding('waste:sim:volume-unmounted:vol-1')], bench.clock.now(), settings);
      const now = bench.clock.now() + 10 * MINUTE;
      const renderers = [emailRenderer('example.com')];
      const queued = await Promise.all([
        notify(bench.db, settings, now, renderers),
        notify(other, settings, now, renderers),
      ]);
      expect(queued.map((rows) => rows.length).sort()).toEqual([0, 1]);
      expect((await bench.outbox()).map((message) => message.reason)).toEqual(['first']);
    } finally {
      other.close();
    }
  });
});
