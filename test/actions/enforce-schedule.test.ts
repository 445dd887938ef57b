import { afterEach, describe, expect, it } from 'vitest';
import { type EnforceRun, HOUR, MIN, runEnforce, runningPod } from './enforce-replay.js';

let run: EnforceRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

/** Wednesday 18:00 UTC, 19:00 in Paris: the weeknight window opens at 20:00 Paris, 19:00 UTC. */
const EVENING = Date.UTC(2026, 11, 2, 18, 0, 0);
const WINDOW_OPENS = Date.UTC(2026, 11, 2, 19, 0, 0);
const LEAD = 15 * MIN;

const team = (team: string) => ({ env: { TEAM: team } });
const teamPods = () => [
  runningPod('vision-1', team('vision')),
  runningPod('vision-2', { ...team('vision'), cost: 1.72 }),
  runningPod('vision-locked', { ...team('vision'), locked: true }),
  runningPod('vision-keep', team('vision')),
  // Stopped at the start; its owner starts it inside the window, at 19:30 UTC.
  runningPod('vision-late', { ...team('vision'), status: 'EXITED', events: [{ at: '1h30m', action: 'start' }] }),
  runningPod('nlp-1', team('nlp')),
];

const nights = (dryRun: boolean) => ({
  schedules: [
    {
      name: 'vision-nights',
      match: { team: ['vision'] },
      exclude: { names: ['vision-keep'] },
      timeZone: 'Europe/Paris',
      offHours: [
        { days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'], from: '20:00', to: '08:00' },
        { days: ['saturday', 'sunday'] },
      ],
      warnLead: '15m',
      dryRun,
    },
  ],
});

const warningOf = (r: EnforceRun, podId: string) =>
  r.report.emails.find((mail) => mail.delivered && mail.alertKeys.includes(`enforce:sim:${podId}:schedule:warn`));

describe('off-hours schedules', () => {
  it("stops a team's Pods when the window opens, each its lead time after its warning was accepted", async () => {
    run = await runEnforce({
      pods: teamPods(),
      enforce: nights(false),
      extra: { owners: { fromEnv: { team: ['TEAM'] } } },
      startAt: EVENING,
      durationMs: 2 * HOUR,
    });
    const stops = run.report.stops.map((stop) => ({ podId: stop.podId, at: Date.parse(stop.at), dryRun: stop.dryRun }));
    expect(stops.map((stop) => stop.podId).sort()).toEqual(['vision-1', 'vision-2', 'vision-late']);
    for (const stop of stops) {
      const warning = warningOf(run, stop.podId);
      expect(warning, `the warning of ${stop.podId}`).toBeDefined();
      expect(stop.at - Date.parse(warning?.at ?? '')).toBeGreaterThanOrEqual(LEAD);
      expect(stop.dryRun).toBe(false);
    }
    // Warned ahead of the window, stopped as it opens (the first evaluation the mail's lead allows).
    for (const podId of ['vision-1', 'vision-2']) {
      const warnedAt = Date.parse(warningOf(run, podId)?.at ?? '');
      expect(warnedAt).toBeGreaterThanOrEqual(WINDOW_OPENS - LEAD);
      expect(warnedAt).toBeLessThan(WINDOW_OPENS - LEAD + 2 * MIN);
      const stopAt = stops.find((stop) => stop.podId === podId)?.at ?? 0;
      expect(stopAt).toBeGreaterThanOrEqual(WINDOW_OPENS);
      expect(stopAt).toBeLessThan(WINDOW_OPENS + 3 * MIN);
    }
    // Started by its owner inside the window: warned then, stopped after the lead.
    const late = Date.parse(warningOf(run, 'vision-late')?.at ?? '');
    expect(late).toBeGreaterThanOrEqual(EVENING + 90 * MIN);
    // Locked and excluded Pods are neither warned nor stopped; the other team is not touched.
    for (const podId of ['vision-locked', 'vision-keep', 'nlp-1']) expect(warningOf(run, podId)).toBeUndefined();
    expect(run.timeline('vision-locked')).toEqual(['19:00:30 schedule blocked:locked']);
    expect(run.timeline('vision-keep')).toEqual(['19:00:30 schedule blocked:exclusion']);
    expect(run.timeline('nlp-1')).toEqual([]);
    const final = new Map(run.report.pods.map((pod) => [pod.id, pod.finalStatus]));
    expect(final).toEqual(
      new Map([
        ['vision-1', 'EXITED'],
        ['vision-2', 'EXITED'],
        ['vision-locked', 'RUNNING'],
        ['vision-keep', 'RUNNING'],
        ['vision-late', 'EXITED'],
        ['nlp-1', 'RUNNING'],
      ]),
    );
  }, 300_000);

  it('in dry run, warns and records the stops but sends none: every Pod still runs', async () => {
    run = await runEnforce({
      pods: teamPods(),
      enforce: nights(true),
      extra: { owners: { fromEnv: { team: ['TEAM'] } } },
      startAt: EVENING,
      durationMs: 2 * HOUR,
    });
    expect(run.report.stops.map((stop) => [stop.podId, stop.dryRun]).sort()).toEqual([
      ['vision-1', true],
      ['vision-2', true],
      ['vision-late', true],
    ]);
    for (const podId of ['vision-1', 'vision-2', 'vision-late']) expect(warningOf(run, podId)).toBeDefined();
    expect(run.report.pods.every((pod) => pod.finalStatus === 'RUNNING')).toBe(true);
    expect(run.receipts.filter((r) => r.decision === 'stopped')).toEqual([]);
  }, 300_000);
});
