import { afterEach, describe, expect, it } from 'vitest';
import { notify } from '../../src/alerts/notify.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { emailRenderer } from '../../src/channels/email.js';
import { toEmailRecord } from '../../src/db/notifications.js';
import { openDatabase } from '../../src/db/open.js';
import { expireSilence, insertSilence } from '../../src/db/silences.js';
import type { Finding } from '../../src/rules/finding.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { type AlertBench, alertBench, budgetFinding, finding, HOUR, MINUTE, START } from './support.js';

/**
 * notify() skips planning while its inputs are those of a plan that decided nothing and no time
 * that plan compared with has come (alerts/quiet.ts). Whatever it skips, the messages must be
 * exactly those of planning every tick.
 */
const benches: AlertBench[] = [];
afterEach(() => {
  for (const bench of benches.splice(0)) bench.close();
});

function tuned(): AlertBench {
  const bench = alertBench((config) => {
    config.alerts.groupWaitMs = 90_000;
    config.alerts.groupIntervalMs = 7 * MINUTE;
    config.alerts.repeatIntervalMs = 50 * MINUTE;
    config.alerts.groupBy = ['account', 'rule'];
    config.alerts.noRepeat = ['capacity'];
  });
  benches.push(bench);
  return bench;
}

/** What the findings are at `t` minutes: repeats, flaps, inhibition, silences, resolutions. */
function findingsAt(t: number): Finding[] {
  return [
    ...(t < 650 ? [finding('waste:sim:volume-unmounted:vol-1')] : []),
    ...(t % 40 < 25 && t < 500 ? [budgetFinding('cpu', 'live', 50)] : []),
    ...(t >= 30 && t < 600 ? [finding('waste:sim:stuck-starting:pod-2')] : []),
    ...(t >= 100 && t < 400 ? [budgetFinding('gpu', 'actual', 50)] : []),
    ...(t >= 200 && t < 300 ? [budgetFinding('gpu', 'actual', 80)] : []),
    ...(t >= 420 && t < 430 ? [finding('capacity:sim:rise:a100', { severity: 'info' })] : []),
  ];
}

/**
 * Twelve hours, a tick a minute; silences are made and ended by another connection (as the CLI
 * does), at times off the minute. `fresh` forgets the kept quiet plan before every tick.
 */
async function script(bench: AlertBench, fresh: boolean): Promise<void> {
  for (let t = 0; t < 12 * 60; t++) {
    const now = START + t * MINUTE;
    if (t === 20 || t === 150 || t === 260) {
      const other = openDatabase(bench.config.database.path);
      if (t === 20) {
        await insertSilence(other, {
          id: 'pod-2',
          matchers: [{ name: 'key', op: '=', value: 'waste:sim:stuck-starting:pod-2' }],
          comment: 'debugging it',
          createdBy: 'test',
          createdAt: now,
          startsAt: now,
          endsAt: START + 250 * MINUTE + 37_000,
        });
      }
      if (t === 150) {
        await insertSilence(other, {
          id: 'budget',
          matchers: [{ name: 'rule', op: '=', value: 'budget' }],
          comment: 'known overrun',
          createdBy: 'test',
          createdAt: now,
          startsAt: now + 5_000,
          endsAt: now + 10 * HOUR,
        });
      }
      if (t === 260) await expireSilence(other, 'budget', now - 11_000);
      other.close();
    }
    // Forgetting the kept plan, as no tick then remembers one: planning runs every time.
    if (fresh) bench.db.sqlite.prepare('UPDATE plan_changes SET quiet_n = NULL').run();
    await bench.tick(findingsAt(t));
    await bench.clock.advanceBy(MINUTE);
  }
}

const messages = async (bench: AlertBench) =>
  (await bench.outbox()).map(({ groupKey, reason, to, subject, text, html, alertKeys, createdAt }) => ({
    groupKey,
    reason,
    to,
    subject,
    text,
    html,
    alertKeys,
    createdAt,
  }));

/**
 * A bench whose one waste finding was announced once over ten minutes, and a second connection
 * to its database whose statements are recorded, for the planning a test then runs on it.
 */
async function announcedOnce() {
  const bench = tuned();
  const waste = finding('waste:sim:volume-unmounted:vol-1');
  await bench.run(10 * MINUTE, () => [waste]);
  expect((await bench.outbox()).map((message) => message.reason)).toEqual(['first']);
  const statements: string[] = [];
  const traced = tracedDatabase(bench.config.database.path, statements);
  return { bench, statements, traced, settings: alertSettings(bench.config) };
}

describe('planning skipped while nothing it reads changes', () => {
  it('writes exactly the messages of planning every tick: repeats, releases by silences, resolutions, flaps', async () => {
    const remembered = tuned();
    const fresh = tuned();
    await script(remembered, false);
    await script(fresh, true);
    const written = await messages(remembered);
    expect(written).toEqual(await messages(fresh));
    // The script reaches every kind of decision a skipped tick could have missed.
    const reasons = new Set(written.map((message) => message.reason));
    for (const reason of ['first', 'new_alerts', 'repeat_elapsed', 'new_resolved', 'all_resolved', 'flapping']) {
      expect(reasons, reason).toContain(reason);
    }
    // pod-2 is announced after its silence ended off the minute, at the first tick past it.
    const released = written.find((message) => message.alertKeys.includes('waste:sim:stuck-starting:pod-2'));
    expect(released?.createdAt).toBeGreaterThan(START + 250 * MINUTE + 37_000);
    const flaps = (bench: AlertBench) => bench.db.sqlite.prepare('SELECT * FROM alert_flaps ORDER BY id').all();
    expect(flaps(remembered)).toEqual(flaps(fresh));
  });

  it('reads only its inputs while they stay the same, and plans again when the repeat interval is due', async () => {
    const { bench, statements, traced, settings } = await announcedOnce();
    const at = async (minutes: number) => {
      statements.length = 0;
      const queued = (
        await notify(traced, settings, START + minutes * MINUTE, [emailRenderer('podwarden.invalid')])
      ).map(toEmailRecord);
      return { queued: queued.map((message) => message.reason), statements: statements.length };
    };
    try {
      traced.sqlite.prepare('UPDATE plan_changes SET quiet_n = NULL').run();
      const planned = await at(11);
      expect(planned.queued).toEqual([]);
      // The inputs alone, outside a transaction: nothing of planning, no BEGIN or COMMIT.
      expect(await at(12)).toEqual({ queued: [], statements: 1 });
      expect(await at(50)).toEqual({ queued: [], statements: 1 });
      expect(planned.statements).toBeGreaterThan(3);
      // The first message went out at minute 2 (the first tick past the group wait); it repeats 50 minutes later.
      expect(await at(51)).toEqual({ queued: [], statements: 1 });
      expect((await at(52)).queued).toEqual(['repeat_elapsed']);
      // Another connection's silence changes the inputs: planned again, and muted.
      const other = openDatabase(bench.config.database.path);
      await insertSilence(other, {
        id: 'all',
        matchers: [{ name: 'rule', op: '=', value: 'waste' }],
        comment: 'quiet',
        createdBy: 'test',
        createdAt: START,
        startsAt: START,
        endsAt: START + 200 * MINUTE,
      });
      other.close();
      expect((await at(53)).statements).toBeGreaterThan(3);
      // Due again at the group interval and the repeat interval: planned, muted.
      expect((await at(101)).queued).toEqual([]);
      expect((await at(102)).queued).toEqual([]);
      expect((await at(103)).queued).toEqual([]);
      expect(await at(120)).toEqual({ queued: [], statements: 1 });
      // The silence ends after the log entry expired (twice the repeat interval): a first message again.
      expect((await at(200)).queued).toEqual(['first']);
    } finally {
      traced.close();
    }
  });
  it('keeps a plan that decided nothing in the database: another connection or a restart does not plan again, other settings do', async () => {
    const { bench, statements, traced: first, settings } = await announcedOnce();
    first.close();
    // The daemon's own connection plans at minute 10 (past the group interval) and decides nothing.
    await bench.tick([finding('waste:sim:volume-unmounted:vol-1')]);
    let traced = tracedDatabase(bench.config.database.path, statements);
    const at = async (minutes: number, as = settings) => {
      statements.length = 0;
      const queued = await notify(traced, as, START + minutes * MINUTE, [emailRenderer('podwarden.invalid')]);
      return { queued: queued.length, statements: statements.length };
    };
    try {
      expect(await at(11)).toEqual({ queued: 0, statements: 1 });
      // A restart: a new connection, nothing in memory.
      traced.close();
      traced = tracedDatabase(bench.config.database.path, statements);
      expect(await at(12)).toEqual({ queued: 0, statements: 1 });
      // Other settings (a reloaded configuration) could decide otherwise: planned again, once.
      const other = alertSettings({ ...bench.config, alerts: { ...bench.config.alerts, groupIntervalMs: 8 * MINUTE } });
      expect((await at(13, other)).statements).toBeGreaterThan(3);
      expect(await at(14, other)).toEqual({ queued: 0, statements: 1 });
      // Back to settings of the first configuration's content: planned (the plan kept is the
      // other settings'), then quiet, whichever configuration object of that content built them.
      const equal = alertSettings({ ...bench.config });
      expect((await at(15, equal)).statements).toBeGreaterThan(3);
      expect(await at(16, settings)).toEqual({ queued: 0, statements: 1 });
    } finally {
      traced.close();
    }
  });
  it('plans again after any connection changes what planning reads, even by hand, and not after a rewrite of figures or a rollback', async () => {
    const { bench, statements, traced, settings } = await announcedOnce();
    let minute = 10;
    const next = async () => {
      statements.length = 0;
      minute += 1;
      await notify(traced, settings, START + minute * MINUTE, [emailRenderer('podwarden.invalid')]);
      return statements.length;
    };
    const write = (sql: string) => traced.sqlite.prepare(sql).run();
    try {
      await next();
      expect(await next()).toBe(1);
      // What every evaluation tick rewrites (figures, wording, when last seen) is not read by planning.
      write(`UPDATE alerts SET details = '{"evaluatedAt":1}', summary = 'again', last_seen_at = last_seen_at + 1`);
      write('UPDATE alerts SET labels = labels, severity = severity');
      expect(await next()).toBe(1);
      const changes = [
        `UPDATE alerts SET labels = json_set(labels, '$.team', 'data')`,
        `UPDATE alerts SET severity = 'critical'`,
        `INSERT INTO alert_flaps (key, rule, account, since, last_change_at, settled_at) VALUES ('k', 'waste', 'sim', 1, 1, 2)`,
        `UPDATE alert_flaps SET noticed_at = 1`,
        'UPDATE notification_log SET receiver = receiver',
        `INSERT INTO silences (id, matchers, comment, created_by, created_at, starts_at, ends_at) VALUES ('none', '[{"name":"rule","op":"=","value":"none"}]', '', 'test', 1, 1, 2)`,
        `DELETE FROM silences WHERE id = 'none'`,
        'DELETE FROM alert_flaps',
      ];
      for (const change of changes) {
        write(change);
        expect(await next(), change).toBeGreaterThan(3);
        expect(await next(), change).toBe(1);
      }
      // A change rolled back leaves the inputs as they were.
      expect(() =>
        traced.transaction(() => {
          write(`UPDATE alerts SET labels = json_set(labels, '$.team', 'ml')`);
          throw new Error('rolled back');
        }),
      ).toThrow('rolled back');
      expect(await next()).toBe(1);
      // Another connection's change (the CLI's, a user's sqlite3) counts as well.
      bench.db.sqlite.prepare(`UPDATE alerts SET labels = json_set(labels, '$.team', 'cli')`).run();
      expect(await next()).toBeGreaterThan(3);
      expect(await next()).toBe(1);
      write(`UPDATE alerts SET labels = json_set(labels, '$.team', 'infra')`);
      expect(await next()).toBeGreaterThan(3);
      // Other recipients: planned, and announced to them.
      write(`UPDATE alerts SET recipients = '["ops@example.com"]'`);
      expect(await next()).toBeGreaterThan(3);
      expect((await bench.outbox()).map((message) => message.to)).toEqual([[], ['ops@example.com']]);
    } finally {
      traced.close();
    }
  });
});
