import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { snoozePod } from '../../src/db/idle-state.js';
import { openDatabase } from '../../src/db/open.js';
import { recentReceipts } from '../../src/db/receipts.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { l40sCatalog } from '../e2e/support/l40s-fleet.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type EnforceRun, HOUR, MIN, runEnforce, runningPod, START } from './enforce-replay.js';

let run: EnforceRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/**
 * Four busy Pods at $8.00/h together: `big` $5.90/h, `held` $1.00/h (locked in RunPod), `small`
 * $0.80/h and `tiny` $0.30/h. The $100 day budget reaches its 80 % stop threshold at 10:00 with
 * 14 h left and $20 to spend: $1.43/h may keep running. Stopping `big` leaves $2.10/h; `held`
 * may not be stopped; stopping `small` too leaves $1.30/h, which fits ($98.20 by midnight).
 */
const pods = [
  runningPod('big', { cost: 5.9 }),
  runningPod('held', { cost: 1, locked: true }),
  runningPod('small', { cost: 0.8 }),
  runningPod('tiny', { cost: 0.3 }),
];

const budgets = (dryRun: boolean) => [
  {
    name: 'gpu-day',
    scope: 'pods',
    period: 'day',
    amount: 100,
    onSpent: { action: 'stop', threshold: 80, warnLead: '30m', dryRun },
  },
];

const capRun = (dryRun: boolean) =>
  runEnforce({
    pods,
    enforce: {},
    durationMs: 24 * HOUR,
    extra: { collectors: onlyCollectors(['billing', 'catalog', 'pods']), budgets: budgets(dryRun) },
  });

const clock = (iso: string) => iso.slice(11, 19);

describe('a day budget spent mid-day, with a stop cap at 80 % (podwarden simulate)', () => {
  it('warns ahead, stops the most expensive Pods until the rate fits, passes over the locked one', async () => {
    run = await capRun(false);
    const { report } = run;
    // One mail warns both Pods the stop will take, its lead (30m) before the stop.
    const capMails = report.emails.filter((mail) => mail.alertKeys.some((key) => key.includes(':budget_cap:')));
    expect(capMails.map((mail) => [clock(mail.at), mail.alertKeys, mail.delivered])).toEqual([
      ['09:30:30', ['enforce:sim:big:budget_cap:warn', 'enforce:sim:small:budget_cap:warn'], true],
    ]);
    const mail = run.smtp.received.find((m) => m.alertKeys.includes('enforce:sim:big:budget_cap:warn'));
    expect(mail?.subject).toBe('[sim] Pod big stops at 10:00 UTC or later: budget cap (+1 more)');
    expect(report.stops.map((stop) => [clock(stop.at), stop.podId, stop.dryRun])).toEqual([
      ['10:00:30', 'big', false],
      ['10:00:30', 'small', false],
    ]);
    expect(run.timeline('big')).toEqual([
      '09:29:30 budget_cap warned',
      '09:59:30 budget_cap blocked:warning_delivered',
      '10:00:30 budget_cap stopped',
    ]);
    // Locked: never warned, never stopped; its receipt names the guard.
    expect(run.timeline('held')).toEqual(['09:59:30 budget_cap blocked:locked']);
    expect(run.timeline('tiny')).toEqual([]);
    expect(report.pods).toEqual([
      { id: 'big', finalStatus: 'EXITED' },
      { id: 'held', finalStatus: 'RUNNING' },
      { id: 'small', finalStatus: 'EXITED' },
      { id: 'tiny', finalStatus: 'RUNNING' },
    ]);
    // The receipt names the budget and its figures at the moment of the stop.
    const stopped = run.receipts.find((r) => r.podId === 'big' && r.decision === 'stopped');
    expect(stopped?.rule).toBe('gpu-day');
    expect(stopped?.kind).toBe('budget_cap');
    expect(stopped?.reason).toBe(
      "$80.18 of $100.00 spent (2026-12-02) at $8.00/h, reached 80% ($80.00) at about 09:59 UTC with 13h 59m of the period left; stopping the most expensive Pods first: $1.30/h left fits: $98.37 by the period's end",
    );
    // Nothing more is warned for the rest of the day: the rate left fits.
    expect(run.receipts.filter((r) => r.decidedAt > START + 10 * HOUR + MIN)).toEqual([]);
  }, 600_000);

  it('in dry run sends no stop request: every Pod runs on, and as spend goes on the cap names more', async () => {
    run = await capRun(true);
    const { report } = run;
    expect(report.pods.every((pod) => pod.finalStatus === 'RUNNING')).toBe(true);
    // The rate does not fall in a dry run: by 10:15 even with big and small stopped it would not
    // fit any more, so tiny is warned and dry-run stopped its lead later; held, locked, never.
    expect(report.stops.map((stop) => [clock(stop.at), stop.podId, stop.dryRun])).toEqual([
      ['10:00:30', 'big', true],
      ['10:00:30', 'small', true],
      ['10:45:30', 'tiny', true],
    ]);
    expect(run.timeline('tiny')).toEqual([
      '10:15:30 budget_cap warned',
      '10:15:30 budget_cap blocked:warning_delivered',
      '10:45:30 budget_cap dry_run',
    ]);
    expect(run.timeline('held')).toEqual(['09:59:30 budget_cap blocked:locked']);
  }, 600_000);

  it('respects Keep running: a snoozed Pod is warned when its snooze ends and stopped its lead later', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'podwarden-cap-'));
    try {
      const dbPath = join(dir, 'podwarden.db');
      const seeded = openDatabase(dbPath);
      await snoozePod(seeded, { account: 'sim', podId: 'small', until: START + 11 * HOUR, createdAt: START });
      seeded.close();
      const config = parseConfig(
        {
          accounts: [{ name: 'sim', apiKey: 'unused-key' }],
          collectors: onlyCollectors(['billing', 'catalog', 'pods']),
          idle: { rules: [] },
          budgets: budgets(false),
        },
        { env: {}, baseDir: '/' },
      );
      const scenario = parseScenario(
        { name: 'cap-snooze', start: new Date(START).toISOString(), apiKey: 'sim-key', catalog: l40sCatalog(), pods },
        'test',
      );
      const report = await replay({
        scenario,
        config,
        durationMs: 24 * HOUR,
        clock: new VirtualClock(START),
        dbPath,
        log: silentLogger(),
      });
      expect(report.stops.map((stop) => [clock(stop.at), stop.podId])).toEqual([
        ['10:00:30', 'big'],
        ['11:30:30', 'small'],
      ]);
      const database = openDatabase(dbPath, { readonly: true });
      const small = (await recentReceipts(database, 1_000))
        .filter((r) => r.podId === 'small')
        .reverse()
        .map((r) => {
          const guard = r.decision === 'blocked' ? `:${r.reason?.split(':')[0]}` : '';
          return `${clock(new Date(r.decidedAt).toISOString())} ${r.decision}${guard}`;
        });
      database.close();
      // Held by its snooze when due; warned once the snooze is over, stopped the lead after.
      expect(small).toEqual([
        '09:59:30 blocked:snooze',
        '11:00:30 warned',
        '11:00:30 blocked:warning_delivered',
        '11:30:30 stopped',
      ]);
      expect(report.pods.find((pod) => pod.id === 'tiny')?.finalStatus).toBe('RUNNING');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});
