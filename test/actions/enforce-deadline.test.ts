import { afterEach, describe, expect, it } from 'vitest';
import { type EnforceRun, HOUR, MIN, offset, runEnforce, runningPod } from './enforce-replay.js';

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
    // The mail left a moment after the 00:30:30 evaluation: at 01:00:30 its lead time had not quite run.
    expect(run.timeline('train')).toEqual([
      '00:30:30 deadline warned',
      '01:00:30 deadline blocked:warning_delivered',
      '01:01:30 deadline stopped',
    ]);
    expect(run.timeline('serve-a')).toEqual([]);
  }, 300_000);
});
