import { afterEach, describe, expect, it } from 'vitest';
import { snoozePod } from '../../src/db/idle-state.js';
import { at, busy, GPU, type IdleWorld, idleFrom, pod, scenario, startIdleWorld, timeline } from './idle-world.js';

let world: IdleWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const live = { dryRun: false };
const notebooks = (count: number) => Array.from({ length: count }, (_, i) => pod(`nb-${i + 1}`, idleFrom('10m')));
const busyPods = (count: number) => Array.from({ length: count }, (_, i) => pod(`busy-${i + 1}`, busy()));
const stoppedAt = (w: IdleWorld) =>
  w.actionRequests().map((entry) => `${entry.path.split('/')[3]}@${entry.atMs - at('0s')}`);
const MIN = 60_000;

describe('caps', () => {
  it('stops at most stopsPerHour Pods in any hour; the rest wait, blocked once each', async () => {
    world = await startIdleWorld(scenario([...notebooks(7), ...busyPods(8)]), {
      ...live,
      caps: { stopsPerHour: 5, stopsPerEvaluation: 10, runningShare: 0.5 },
    });
    await world.runUntil('1h30m');
    expect(world.actionRequests().map((entry) => entry.path)).toEqual(
      [1, 2, 3, 4, 5].map((n) => `/v2/pods/nb-${n}/action`),
    );
    expect(await timeline(world, 'nb-6')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:55:30 blocked:cap_per_hour',
    ]);
    expect((await timeline(world, 'nb-7')).at(-1)).toBe('00:55:30 blocked:cap_per_hour');
    await world.runUntil('2h');
    // An hour after the five stops, the two that waited go.
    expect(stoppedAt(world).slice(5)).toEqual([`nb-6@${115.5 * MIN}`, `nb-7@${115.5 * MIN}`]);
  });

  it('stops at most stopsPerEvaluation Pods per evaluation, the largest saving first', async () => {
    const pods = [
      pod('nb-small', idleFrom('10m'), { cost: 0.27 }),
      pod('nb-large', idleFrom('10m'), { cost: 1.64 }),
      pod('nb-mid', idleFrom('10m'), { cost: 0.69 }),
      ...busyPods(4),
    ];
    world = await startIdleWorld(scenario(pods), {
      ...live,
      caps: { stopsPerHour: 5, stopsPerEvaluation: 2, runningShare: 0.5 },
    });
    await world.runUntil('1h');
    expect(stoppedAt(world)).toEqual([`nb-large@${55.5 * MIN}`, `nb-mid@${55.5 * MIN}`, `nb-small@${56.5 * MIN}`]);
    expect((await timeline(world, 'nb-small')).slice(2)).toEqual([
      '00:55:30 blocked:cap_per_evaluation',
      '00:56:30 stopped',
    ]);
  });

  it('stops none when one evaluation would stop more than the set share of running Pods, and alerts', async () => {
    world = await startIdleWorld(scenario([...notebooks(3), ...busyPods(1)]), live);
    await world.runUntil('1h');
    expect(world.actionRequests()).toEqual([]);
    for (const n of [1, 2, 3]) expect((await timeline(world, `nb-${n}`)).at(-1)).toBe('00:55:30 blocked:blast_radius');
    const alert = world.findingsAt('55m30s').find((finding) => finding.key === 'idle:sim:default:blast-radius');
    expect(alert?.severity).toBe('critical');
    expect(alert?.summary).toContain('3 stop(s) of 4 running Pod(s), limit 2 (50%)');
    expect(alert?.details.podIds).toEqual(['nb-1', 'nb-2', 'nb-3']);
  });
});

describe('scarcity', () => {
  const scarce = (availability: unknown) =>
    scenario([pod('nb', idleFrom('10m'))], {
      catalog: {
        gpus: [{ id: GPU, name: 'RTX A5000', memory: 24, price: { secure: 0.27, community: 0.16 }, availability }],
      },
    });

  it('turns the stop of a GPU type at LOW into an alert, and stops once the type is back', async () => {
    world = await startIdleWorld(
      scarce([
        { at: '0s', value: 'LOW' },
        { at: '1h', value: 'HIGH' },
      ]),
      live,
    );
    await world.runUntil('58m');
    expect(world.actionRequests()).toEqual([]);
    expect((await timeline(world, 'nb')).at(-1)).toBe('00:55:30 blocked:scarcity');
    const alert = world.findingsAt('57m30s').find((finding) => finding.key === 'idle:sim:nb:scarce');
    expect(alert?.summary).toContain(`${GPU} at availability LOW: it may not come back once stopped`);
    await world.runUntil('1h5m');
    // The catalog poll at 01:00 sees HIGH; the next evaluation stops.
    expect(stoppedAt(world)).toEqual([`nb@${60.5 * MIN}`]);
  });

  it('stops anyway when the rule says stopWhenScarce', async () => {
    world = await startIdleWorld(scarce('NONE'), { ...live, stopWhenScarce: true });
    await world.runUntil('1h');
    expect(stoppedAt(world)).toEqual([`nb@${55.5 * MIN}`]);
    const guard = (await world.receipts('nb')).at(-1)?.guards.find((g) => g.guard === 'scarcity');
    expect(guard).toEqual({
      guard: 'scarcity',
      passed: true,
      detail: `${GPU} at availability NONE; the rule stops anyway (stopWhenScarce)`,
    });
  });
});

describe('a stop a guard keeps holding', () => {
  it('is recorded once per guard, when first held, and the ticks after leave that receipt as it was', async () => {
    const pods = [pod('nb', idleFrom('10m')), pod('locked', idleFrom('10m'), { locked: true })];
    const catalog = {
      gpus: [{ id: GPU, name: 'RTX A5000', memory: 24, price: { secure: 0.27, community: 0.16 }, availability: 'LOW' }],
    };
    world = await startIdleWorld(scenario(pods, { catalog }), live);
    await world.runUntil('56m');
    const first = [...(await world.receipts('nb')), ...(await world.receipts('locked'))];
    await world.runUntil('1h10m');
    // Every tick since offered both stops again: nothing was written or announced again.
    expect([...(await world.receipts('nb')), ...(await world.receipts('locked'))]).toEqual(first);
    const blocked = first.filter((receipt) => receipt.decision === 'blocked');
    expect(blocked.map((receipt) => [receipt.idempotencyKey.split(':').at(-1), receipt.decidedAt])).toEqual([
      ['scarcity', at('55m30s')],
      ['locked', at('40m30s')],
    ]);
    for (const receipt of blocked) expect(receipt.evidence.samples.length).toBeGreaterThan(0);
    expect(world.decided.filter((event) => event.decision === 'blocked').map((event) => event.podId)).toEqual([
      'locked',
      'nb',
    ]);
  });
});

describe('exclusions, quiet hours, snooze', () => {
  it('never acts on Pods excluded by id, by name pattern or by PODWARDEN_IGNORE=true', async () => {
    const pods = [
      pod('keep-me', idleFrom('10m')),
      pod('dev-box-1', idleFrom('10m'), { name: 'dev-box-alice' }),
      pod('flagged', idleFrom('10m'), { env: { PODWARDEN_IGNORE: 'true', TEAM: 'ml' } }),
      pod('nb', idleFrom('10m')),
      ...busyPods(2),
    ];
    world = await startIdleWorld(scenario(pods), {
      ...live,
      exclude: { podIds: ['keep-me'], names: ['dev-box-*'] },
    });
    await world.runUntil('1h');
    expect(stoppedAt(world)).toEqual([`nb@${55.5 * MIN}`]);
    expect((await world.receipts()).filter((receipt) => receipt.podId !== 'nb')).toEqual([]);
    const keys = world.ticks.flatMap((tick) => tick.findings.map((finding) => finding.key));
    expect(new Set(keys)).toEqual(new Set(['idle:sim:nb', 'idle:sim:nb:warn']));
  });

  it('plans the stop after quiet hours, and blocks a stop that comes due inside them', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))]), {
      ...live,
      quietHours: [{ from: '00:50', to: '01:20' }],
    });
    await world.runUntil('1h30m');
    const warned = (await world.receipts('nb'))[1];
    expect(warned?.plannedStopAt).toBe(at('1h20m'));
    expect(stoppedAt(world)).toEqual([`nb@${80.5 * MIN}`]);
  });

  it('records a stop blocked by quiet hours that began while another guard held it', async () => {
    const source = scenario([pod('nb', idleFrom('10m'))], {
      catalog: {
        gpus: [
          {
            id: GPU,
            name: 'RTX A5000',
            memory: 24,
            price: { secure: 0.27, community: 0.16 },
            availability: [
              { at: '0s', value: 'LOW' },
              { at: '1h', value: 'HIGH' },
            ],
          },
        ],
      },
    });
    world = await startIdleWorld(source, { ...live, quietHours: [{ from: '00:58', to: '01:30' }] });
    await world.runUntil('1h40m');
    expect(await timeline(world, 'nb')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:55:30 blocked:scarcity',
      '00:58:30 blocked:quiet_hours',
      '01:30:30 stopped',
    ]);
  });

  it('postpones every step while a Pod is snoozed, then starts the ladder again with a new warning', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))]), live);
    await world.runUntil('45m');
    snoozePod(world.h.db, { account: 'sim', podId: 'nb', until: at('1h45m'), createdAt: at('45m') });
    await world.runUntil('2h30m');
    expect(await timeline(world, 'nb')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:45:30 cancelled',
      '01:45:30 notified',
      '01:45:30 warned',
      '02:00:30 stopped',
    ]);
    expect((await world.receipts('nb'))[2]?.reason).toContain('snoozed until 2026-11-02T01:45:00Z');
    expect(stoppedAt(world)).toEqual([`nb@${120.5 * MIN}`]);
  });
});

describe('the re-read just before the stop', () => {
  it('blocks the stop of a locked Pod on its polled lock, before any re-read or request', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'), { locked: true })]), live);
    await world.runUntil('1h');
    expect(world.actionRequests()).toEqual([]);
    const blocked = (await world.receipts('nb')).at(-1);
    expect(blocked?.decision).toBe('blocked');
    expect(blocked?.reason).toMatch(/^locked: the Pod is locked in RunPod/);
    expect(blocked?.guards.map((guard) => guard.guard)).toEqual(['locked']);
  });

  it('blocks the stop of a Pod that got busy since the last poll', async () => {
    const waking = pod('nb', [...idleFrom('10m'), { at: '55m10s', gpu: 70, gpuMemory: 40, memory: 30 }]);
    world = await startIdleWorld(scenario([waking]), live);
    await world.runUntil('1h');
    expect(world.actionRequests()).toEqual([]);
    expect(await timeline(world, 'nb')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:55:30 blocked:pod_state',
      '00:56:30 cancelled',
    ]);
    expect((await world.receipts('nb'))[2]?.reason).toBe('pod_state: live GPU 70% is above 5%');
  });

  it('records a failed stop, tries again each evaluation, and gives up with an alert after three failures', async () => {
    const faults = [{ from: '0s', to: '3h', match: '/v2/pods/nb/action', kind: 'status', status: 500 }];
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))], { faults }), live);
    await world.runUntil('1h');
    expect(await timeline(world, 'nb')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:55:30 failed',
      '00:56:30 failed',
      '00:57:30 failed',
    ]);
    expect(world.actionRequests().map((entry) => entry.status)).toEqual([500, 500, 500]);
    expect((await world.receipts('nb'))[2]?.reason).toContain('500');
    const alert = world.findingsAt('59m30s').find((finding) => finding.key === 'idle:sim:nb:stop-failed');
    expect(alert?.severity).toBe('critical');
    expect(alert?.summary).toBe('Pod nb could not be stopped: gave up after 3 attempts');
  });
});
