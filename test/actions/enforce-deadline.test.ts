import { afterEach, describe, expect, it } from 'vitest';
import { snoozePod } from '../../src/db/idle-state.js';
import { openDatabase } from '../../src/db/open.js';
import { textOf } from '../helpers/mail-text.js';
import { type EnforceRun, HOUR, MIN, offset, runEnforce, runningPod, START } from './enforce-replay.js';

let run: EnforceRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

describe('deadlines', () => {
  it('warns a Pod its lead time before its deadline, then stops it once the mail was accepted that long ago', async () => {
    run = await runEnforce({
      // train started an hour before the scenario: its 2h deadline falls an hour in.
      pods: [runningPod('train'), runningPod('serve-a'), runningPod('serve-b')],
      enforce: {
        deadlines: [
          { name: 'training', match: { names: ['train*'] }, maxRuntime: '2h', warnLead: '30m', dryRun: false },
        ],
      },
      durationMs: 2 * HOUR,
    });
    const warning = run.report.emails.find((mail) => mail.alertKeys.includes('enforce:sim:train:deadline:warn'));
    expect(warning?.delivered).toBe(true);
    const warnedAt = offset(warning?.at ?? '');
    expect(warnedAt).toBeGreaterThanOrEqual(30 * MIN);
    expect(warnedAt).toBeLessThan(32 * MIN);
    expect(run.report.stops).toHaveLength(1);
    const stop = run.report.stops[0];
    expect(stop?.podId).toBe('train');
    expect(stop?.dryRun).toBe(false);
    const stoppedAt = offset(stop?.at ?? '');
    expect(stoppedAt).toBeGreaterThanOrEqual(Math.max(HOUR, warnedAt + 30 * MIN));
    expect(run.report.pods.find((pod) => pod.id === 'train')?.finalStatus).toBe('EXITED');
    // When the mail left within the 00:30:30 tick decides whether its lead time has run at 01:00:30:
    // a stop held by it is recorded, and made a minute later.
    expect(run.timeline('train').filter((line) => !line.endsWith('blocked:warning_delivered'))).toEqual([
      '00:30:30 deadline warned',
      expect.stringMatching(/^01:0[01]:30 deadline stopped$/),
    ]);
    expect(run.timeline('serve-a')).toEqual([]);
  }, 300_000);
});

describe('deadlines held by a snooze, and set by the Pod itself', () => {
  it('does not warn or stop a snoozed Pod; once the snooze ends it is warned, and stopped the lead time later', async () => {
    run = await runEnforce({
      pods: [runningPod('train', { startedAt: '-1h' }), runningPod('serve')],
      enforce: {
        deadlines: [
          { name: 'training', match: { names: ['train'] }, maxRuntime: '2h30m', warnLead: '30m', dryRun: false },
        ],
      },
      durationMs: 4 * HOUR,
      // At 1h, before its warning, someone runs `podwarden snooze train 2h`.
      everyHour: async (at, { dbPath }) => {
        if (at !== START + HOUR) return;
        const database = openDatabase(dbPath);
        try {
          await snoozePod(database, { account: 'sim', podId: 'train', until: at + 2 * HOUR, createdAt: at });
        } finally {
          database.close();
        }
      },
    });
    expect(run.timeline('train').filter((line) => !line.endsWith('blocked:warning_delivered'))).toEqual([
      '01:30:30 deadline blocked:snooze',
      '03:00:30 deadline warned',
      expect.stringMatching(/^03:3[01]:30 deadline stopped$/),
    ]);
    const warnings = run.report.emails.filter((m) => m.alertKeys.includes('enforce:sim:train:deadline:warn'));
    expect(warnings).toHaveLength(1);
    expect(offset(run.report.stops[0]?.at ?? '')).toBeGreaterThanOrEqual(offset(warnings[0]?.at ?? '') + 30 * MIN);
  }, 300_000);

  it('takes a Pod’s own PODWARDEN_MAX_RUNTIME (dry run by default) and reports one it cannot read', async () => {
    run = await runEnforce({
      pods: [
        runningPod('notebook', { env: { PODWARDEN_MAX_RUNTIME: '1h30m' } }),
        runningPod('typo', { env: { PODWARDEN_MAX_RUNTIME: '12 hours' } }),
      ],
      enforce: {},
      durationMs: HOUR,
    });
    expect(run.timeline('notebook').filter((line) => !line.endsWith('blocked:warning_delivered'))).toEqual([
      '00:00:30 deadline warned',
      expect.stringMatching(/^00:3[01]:30 deadline dry_run$/),
    ]);
    expect(run.receipts.find((r) => r.decision === 'dry_run')).toMatchObject({
      rule: 'env',
      kind: 'deadline',
      dryRun: true,
      reason: 'PODWARDEN_MAX_RUNTIME=1h30m',
    });
    expect(run.report.pods.every((pod) => pod.finalStatus === 'RUNNING')).toBe(true);
    expect(run.timeline('typo')).toEqual([]);
    expect(run.report.alerts.find((alert) => alert.key === 'enforce:sim:typo:deadline:bad-env')?.state).toBe('firing');
    const mail = run.smtp.received.find((m) => m.alertKeys.includes('enforce:sim:typo:deadline:bad-env'));
    expect(textOf(mail?.raw ?? '')).toContain(
      'Pod typo: env PODWARDEN_MAX_RUNTIME="12 hours" is not a duration (expected e.g. 12h, 90m, 1d): its own deadline is ignored',
    );
  }, 300_000);
});
