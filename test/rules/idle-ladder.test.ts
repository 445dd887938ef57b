import { afterEach, describe, expect, it } from 'vitest';
import { at, busy, type IdleWorld, idleFrom, pod, scenario, startIdleWorld, timeline } from '../actions/idle-world.js';

let world: IdleWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const live = { dryRun: false };

describe('idle ladder against the simulator (virtual time)', () => {
  it('never touches a training Pod whose GPU dips to 0 % for a five-minute checkpoint every hour', async () => {
    const training = pod('train', [
      { at: '-2h', gpu: 97, gpuMemory: 88, memory: 60, every: '1h', until: '8h' },
      { at: '-5m', gpu: 0, gpuMemory: 88, memory: 70, every: '1h', until: '8h' },
    ]);
    world = await startIdleWorld(scenario([training]), live);
    await world.runUntil('6h');
    expect(await world.receipts('train')).toEqual([]);
    expect(world.ticks.flatMap((tick) => tick.findings)).toEqual([]);
    expect(world.actionRequests()).toEqual([]);
    expect(world.h.sim.world.podStatuses(at('6h')).train).toBe('RUNNING');
  });

  it('warns about a notebook left idle, then stops it after window + lead time', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))]), live);
    await world.runUntil('1h');
    // Busy until 00:10; the first evaluation whose 30-minute window holds no busy sample is 00:40:30.
    expect(await timeline(world, 'nb')).toEqual(['00:40:30 notified', '00:40:30 warned', '00:55:30 stopped']);
    const [stop] = world.actionRequests();
    expect(world.actionRequests()).toHaveLength(1);
    expect(stop?.path).toBe('/v2/pods/nb/action');
    expect(stop?.atMs).toBe(at('55m30s'));
    expect(world.h.sim.world.podStatuses(at('1h')).nb).toBe('EXITED');

    const warn = world.findingsAt('40m30s').find((finding) => finding.key === 'idle:sim:nb:warn');
    expect(warn?.severity).toBe('warning');
    expect(warn?.summary).toContain('Pod nb idle for 30m at $0.27/h');
    expect(warn?.summary).toContain('will be stopped at 2026-11-02T00:55:30Z (in 15m)');
    expect(warn?.summary).toContain('podwarden snooze nb DURATION');
    expect(warn?.summary).toContain('PODWARDEN_IGNORE=true');
    expect(world.findingsAt('40m30s').map((finding) => finding.key)).toEqual(['idle:sim:nb', 'idle:sim:nb:warn']);

    const stopped = (await world.receipts('nb')).at(-1);
    expect(stopped?.guards.map((guard) => [guard.guard, guard.passed])).toEqual([
      ['fresh_data', true],
      ['exclusion', true],
      ['locked', true],
      ['snooze', true],
      ['quiet_hours', true],
      ['scarcity', true],
      ['warning_delivered', true],
      ['blast_radius', true],
      ['cap_per_hour', true],
      ['cap_per_evaluation', true],
      ['pod_state', true],
    ]);
    expect(stopped?.evidence.samples).toHaveLength(30);
    expect(stopped?.evidence.samples.every((sample) => sample.state === 'IDLE')).toBe(true);
    expect(stopped?.costPerHr).toBe(0.27);
    expect(stopped?.savingPerHr).toBeCloseTo(0.27 - (20 * 0.2) / 730, 6);
    expect(world.rereads().map((entry) => entry.atMs)).toEqual([at('55m30s')]);
    // The episode ends once the Pod shows up stopped; nothing more is decided.
    expect(world.decided.map((event) => event.decision)).toEqual(['notified', 'warned', 'stopped']);
  });

  it('restarts the evidence, not the stop, after a telemetry gap in the middle of an idle stretch', async () => {
    const gappy = pod('nb', [
      { at: '-2h', gpu: 0, gpuMemory: 0, memory: 10 },
      { at: '40m', runtime: null },
      { at: '50m', gpu: 0, gpuMemory: 0, memory: 10 },
    ]);
    world = await startIdleWorld(scenario([gappy]), live);
    await world.runUntil('2h');
    // Idle from the first poll: warned at 00:27:30 (90 % of the window), stop planned for 00:42:30;
    // the gap from 00:40 cancels it, and the evidence must fill 90 % of a window after the gap again.
    expect(await timeline(world, 'nb')).toEqual([
      '00:27:30 notified',
      '00:27:30 warned',
      '00:40:30 cancelled',
      '01:17:30 notified',
      '01:17:30 warned',
      '01:32:30 stopped',
    ]);
    const cancelled = (await world.receipts('nb'))[2];
    expect(cancelled?.reason).toContain('unknown');
    expect(world.actionRequests().map((entry) => entry.atMs)).toEqual([at('1h32m30s')]);
  });

  it('restarts the evidence after a gap shorter than the 10 % coverage allows, instead of resuming at once', async () => {
    // Three minutes without runtime: under 10 % of the 30-minute window, yet a blind spot. Idle
    // evidence from before it does not count towards the next stop.
    const blip = pod('nb', [
      { at: '-2h', gpu: 0, gpuMemory: 0, memory: 10 },
      { at: '40m', runtime: null },
      { at: '43m', gpu: 0, gpuMemory: 0, memory: 10 },
    ]);
    world = await startIdleWorld(scenario([blip]), live);
    await world.runUntil('2h');
    expect(await timeline(world, 'nb')).toEqual([
      '00:27:30 notified',
      '00:27:30 warned',
      '00:40:30 cancelled',
      // 90 % of the window since the first sample after the gap (00:43:30), then the lead time.
      '01:10:30 notified',
      '01:10:30 warned',
      '01:25:30 stopped',
    ]);
    expect(world.actionRequests().map((entry) => entry.atMs)).toEqual([at('1h25m30s')]);
  });

  it('freezes every stop while the Pod collector is stale, and raises a health finding', async () => {
    const faults = [{ from: '50m', to: '1h10m', match: '/v2/pods', kind: 'status', status: 503 }];
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))], { faults }), live);
    await world.runUntil('2h');
    // Warned at 00:40:30 for 00:55:30; the Pod list fails from 00:50, so the stop is blocked by
    // fresh_data (recorded once) until the data is back, and the gap then restarts the evidence.
    expect(await timeline(world, 'nb')).toEqual([
      '00:40:30 notified',
      '00:40:30 warned',
      '00:55:30 blocked:fresh_data',
      '01:10:30 cancelled',
      '01:37:30 notified',
      '01:37:30 warned',
      '01:52:30 stopped',
    ]);
    expect(world.actionRequests().map((entry) => entry.atMs)).toEqual([at('1h52m30s')]);
    const health = world.findingsAt('55m30s').find((finding) => finding.rule === 'health');
    expect(health?.key).toBe('health:sim:idle-stops-frozen');
    expect(health?.summary).toContain('the Pod collector last succeeded');
    expect(world.findingsAt('49m30s').some((finding) => finding.rule === 'health')).toBe(false);
    expect(world.findingsAt('1h10m30s').some((finding) => finding.rule === 'health')).toBe(false);
  });

  it('runs and records the whole ladder in dry run, but sends no request for the Pod at all', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m')), pod('busy', busy())]));
    await world.runUntil('1h');
    expect(await timeline(world, 'nb')).toEqual(['00:40:30 notified', '00:40:30 warned', '00:55:30 dry_run']);
    expect((await world.receipts('nb')).every((receipt) => receipt.dryRun)).toBe(true);
    expect(world.actionRequests()).toEqual([]);
    expect(world.rereads()).toEqual([]);
    expect(world.h.sim.world.podStatuses(at('1h')).nb).toBe('RUNNING');
    const warn = world.findingsAt('40m30s').find((finding) => finding.key === 'idle:sim:nb:warn');
    expect(warn?.summary).toContain('would be stopped at 2026-11-02T00:55:30Z (dry run: no stop is sent)');
    // The decision is made once per episode: the Pod stays idle, and nothing more is decided.
    expect(world.decided.filter((event) => event.decision === 'dry_run')).toHaveLength(1);
  });

  it('is a no-op when an evaluation is run again at the same time (a re-run after a crash)', async () => {
    world = await startIdleWorld(scenario([pod('nb', idleFrom('10m'))]), live);
    for (const tick of ['40m30s', '55m30s']) {
      await world.runUntil(tick);
      const receipts = await world.receipts();
      const requests = world.h.sim.requestLog.lastSeq();
      await world.evaluateNow();
      expect(await world.receipts()).toEqual(receipts);
      expect(world.h.sim.requestLog.lastSeq()).toBe(requests);
    }
    expect(await timeline(world, 'nb')).toEqual(['00:40:30 notified', '00:40:30 warned', '00:55:30 stopped']);
  });
});
