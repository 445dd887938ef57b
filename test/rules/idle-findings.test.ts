import { afterEach, describe, expect, it } from 'vitest';
import { idleCandidates } from '../../src/actions/idle-status.js';
import { at, busy, type IdleWorld, pod, scenario, startIdleWorld, timeline } from '../actions/idle-world.js';

let world: IdleWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** A notebook whose GPU went quiet at 10m with a model still loaded (41 % of GPU memory). */
const heldNotebook = () =>
  pod('nb', [
    { at: '-2h', gpu: 70, gpuMemory: 60, memory: 30 },
    { at: '10m', gpu: 0, gpuMemory: 41, memory: 20 },
  ]);

describe('held-idle', () => {
  it('is its own finding, and is only reported by default', async () => {
    world = await startIdleWorld(scenario([heldNotebook()]), { dryRun: false });
    await world.runUntil('1h30m');
    expect(timeline(world, 'nb')).toEqual(['00:40:30 notified']);
    expect(world.actionRequests()).toEqual([]);
    const [finding, ...others] = world.findingsAt('1h29m30s');
    expect(others).toEqual([]);
    expect(finding?.key).toBe('idle:sim:nb:held');
    expect(finding?.labels.held).toBe('true');
    expect(finding?.summary).toBe('Pod nb held-idle for 1h19m at $0.27/h: GPU memory in use, no compute');
    expect(world.receipts('nb')[0]?.evidence.held).toBe(true);
  });

  it('is warned about and stopped when the rule allows stopping held-idle Pods', async () => {
    world = await startIdleWorld(scenario([heldNotebook()]), {
      dryRun: false,
      heldIdle: { memoryThreshold: 10, stop: true },
    });
    await world.runUntil('1h');
    expect(timeline(world, 'nb')).toEqual(['00:40:30 notified', '00:40:30 warned', '00:55:30 stopped']);
  });
});

describe('clusters', () => {
  it('reports a cluster whose Pods are all idle, and never laddered or stopped its Pods', async () => {
    const member = (id: string) => ({
      ...pod(id, [{ at: '-2h', gpu: 0, gpuMemory: 0, memory: 5 }]),
      status: undefined,
    });
    const clusters = [{ id: 'cl-1', name: 'pretrain', type: 'TRAINING', pods: [member('cl-1-0'), member('cl-1-1')] }];
    world = await startIdleWorld(scenario([pod('busy', busy())], { clusters }), { dryRun: false });
    await world.runUntil('1h');
    expect(world.receipts()).toEqual([]);
    expect(world.actionRequests()).toEqual([]);
    const finding = world.findingsAt('59m30s').find((f) => f.key === 'idle:sim:cluster:cl-1');
    expect(finding?.summary).toBe('Cluster cl-1: all 2 Pods idle at $0.54/h (clusters are never stopped)');
  });
});

describe('idleCandidates', () => {
  it('lists the Pods the ladder holds, with the countdown to the planned stop', async () => {
    world = await startIdleWorld(
      scenario([pod('nb', [{ at: '-2h', gpu: 0, gpuMemory: 0, memory: 5 }]), pod('b', busy())]),
    );
    await world.runUntil('30m');
    const [candidate, ...others] = await idleCandidates(world.h.db, world.h.config, at('30m'));
    expect(others).toEqual([]);
    expect(candidate).toMatchObject({
      account: 'sim',
      podId: 'nb',
      rule: 'default',
      phase: 'warned',
      warnedAt: at('27m30s'),
      plannedStopAt: at('42m30s'),
      msToStop: 12.5 * 60_000,
      dryRun: true,
      costPerHr: 0.27,
    });
    expect((await idleCandidates(world.h.db, world.h.config, at('43m')))[0]?.phase).toBe('stop_due');
  });
});
