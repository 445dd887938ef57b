import { describe, expect, it } from 'vitest';
import type { PodAction, PodStatus } from '../../src/simulator/v2-types.js';
import { gpuPod, H100, HOUR, iso, MINUTE, SECOND, START_MS, worldOf } from './world-fixtures.js';

// Deterministic lifecycle timings (defaults): 20 s PROVISIONING, then 30 s STARTING.
const PROVISIONING_MS = 20 * SECOND;
const STARTING_MS = 30 * SECOND;

const ALL_ACTIONS: PodAction[] = ['start', 'stop', 'restart', 'terminate'];

/** One Pod in each status at START_MS (TERMINATED Pods are gone, tested separately). */
function worldInEveryStatus() {
  return worldOf({
    pods: [
      gpuPod('running', { status: 'RUNNING', startedAt: '-1h', volumeGb: 20 }),
      gpuPod('exited', { status: 'EXITED' }),
      gpuPod('error', { status: 'ERROR' }),
      gpuPod('provisioning', { status: 'PROVISIONING' }),
      gpuPod('starting', { status: 'STARTING' }),
    ],
  });
}

const TABLE: Array<{ status: PodStatus; valid: PodAction[] }> = [
  { status: 'RUNNING', valid: ['stop', 'restart', 'terminate'] },
  { status: 'EXITED', valid: ['start', 'terminate'] },
  { status: 'ERROR', valid: ['start', 'terminate'] },
  { status: 'PROVISIONING', valid: ['stop', 'terminate'] },
  { status: 'STARTING', valid: ['stop', 'terminate'] },
];

/** What each valid action leads to right away (before the lifecycle moves on by itself). */
const NEXT: Record<PodAction, PodStatus> = {
  start: 'PROVISIONING',
  stop: 'EXITED',
  restart: 'STARTING',
  terminate: 'TERMINATED',
};

describe('world: status machine', () => {
  for (const { status, valid } of TABLE) {
    const id = status.toLowerCase();

    it(`${status}: actions lists exactly ${valid.join(', ')}`, () => {
      expect(worldInEveryStatus().podView(id, START_MS)?.actions).toEqual(valid);
    });

    for (const action of ALL_ACTIONS) {
      const allowed = valid.includes(action);
      it(`${status} + ${action} → ${allowed ? NEXT[action] : '409'}`, () => {
        const world = worldInEveryStatus();
        const result = world.podAction(id, action, START_MS + SECOND);
        if (!allowed) {
          expect(result).toEqual({
            ok: false,
            status: 409,
            detail: `cannot ${action} pod ${id} while it is ${status} (valid actions: ${valid.join(', ')})`,
          });
          expect(world.podStatuses(START_MS + SECOND)[id]).toBe(status);
          return;
        }
        expect(result.ok).toBe(true);
        if (result.ok) expect(result.pod?.status ?? 'TERMINATED').toBe(NEXT[action]);
        expect(world.podStatuses(START_MS + SECOND)[id]).toBe(NEXT[action]);
      });
    }
  }

  it('start runs PROVISIONING → STARTING → RUNNING on a fixed schedule', () => {
    const world = worldInEveryStatus();
    const t0 = START_MS + MINUTE;
    world.podAction('exited', 'start', t0);
    const at = (offset: number) => world.podView('exited', t0 + offset);
    expect(at(0)).toMatchObject({ status: 'PROVISIONING', actions: ['stop', 'terminate'], cost: 3.6, runtime: null });
    expect(at(PROVISIONING_MS - 1)?.status).toBe('PROVISIONING');
    expect(at(PROVISIONING_MS)).toMatchObject({ status: 'STARTING', runtime: null });
    expect(at(PROVISIONING_MS + STARTING_MS)).toMatchObject({
      status: 'RUNNING',
      startedAt: new Date(t0 + PROVISIONING_MS + STARTING_MS).toISOString().replace('.000Z', 'Z'),
      runtime: { uptime: 0 },
    });
    expect(at(PROVISIONING_MS + STARTING_MS + 90 * SECOND)?.runtime?.uptime).toBe(90);
  });

  it('a stop during PROVISIONING cancels the rest of the start', () => {
    const world = worldInEveryStatus();
    world.podAction('exited', 'start', START_MS);
    expect(world.podAction('exited', 'stop', START_MS + 10 * SECOND).ok).toBe(true);
    expect(world.podView('exited', START_MS + HOUR)?.status).toBe('EXITED');
  });

  it('a Pod already PROVISIONING at start gets to RUNNING by itself', () => {
    const world = worldInEveryStatus();
    expect(world.podStatuses(START_MS + PROVISIONING_MS + STARTING_MS)).toMatchObject({
      provisioning: 'RUNNING',
      starting: 'RUNNING',
    });
  });

  it('stop: EXITED, runtime null, cost 0, disk kept; startedAt still says when it last started', () => {
    const world = worldInEveryStatus();
    const pod = world.podAction('running', 'stop', START_MS + MINUTE);
    expect(pod).toMatchObject({
      ok: true,
      pod: {
        status: 'EXITED',
        actions: ['start', 'terminate'],
        runtime: null,
        cost: 0,
        mounts: { persistent: { size: 20, path: '/workspace' } },
        startedAt: '2026-11-01T23:00:00Z',
        ssh: { direct: null },
      },
    });
  });

  it('restart: STARTING, then RUNNING with a fresh uptime', () => {
    const world = worldInEveryStatus();
    expect(world.podView('running', START_MS)?.runtime?.uptime).toBe(3600);
    world.podAction('running', 'restart', START_MS);
    expect(world.podView('running', START_MS + STARTING_MS - 1)).toMatchObject({ status: 'STARTING', runtime: null });
    expect(world.podView('running', START_MS + STARTING_MS + 5 * SECOND)?.runtime?.uptime).toBe(5);
  });

  it('terminate: gone from the lists and from get, 404 for further actions; the ground truth keeps it', () => {
    const world = worldInEveryStatus();
    expect(world.podAction('running', 'terminate', START_MS)).toEqual({ ok: true, pod: null });
    expect(world.podView('running', START_MS)).toBeUndefined();
    expect(world.podsView(START_MS, { includeClusterPods: true }).map((pod) => pod.id)).not.toContain('running');
    expect(world.podAction('running', 'start', START_MS)).toEqual({
      ok: false,
      status: 404,
      detail: 'pod running not found',
    });
    expect(world.podStatuses(START_MS).running).toBe('TERMINATED');
  });

  it('an unknown Pod is 404', () => {
    expect(worldInEveryStatus().podAction('nope', 'stop', START_MS)).toMatchObject({ ok: false, status: 404 });
  });

  it('a locked Pod cannot be stopped or restarted, and does not offer it', () => {
    const world = worldOf({ pods: [gpuPod('locked', { locked: true })] });
    expect(world.podView('locked', START_MS)).toMatchObject({ locked: true, actions: ['terminate'] });
    expect(world.podAction('locked', 'stop', START_MS)).toEqual({
      ok: false,
      status: 409,
      detail: 'pod locked is locked: it cannot be stopped or restarted',
    });
  });
});

describe('world: clusters', () => {
  const member = (id: string) => ({ id, name: id, gpu: { id: H100, count: 8 }, cost: 23.92, startedAt: '-1h' });
  const world = () =>
    worldOf({
      pods: [gpuPod('solo')],
      clusters: [{ id: 'cl-1', name: 'pretrain', type: 'SLURM', pods: [member('node-0'), member('node-1')] }],
    });

  it('members are hidden from the Pod list unless includeClusterPods, and carry their membership', () => {
    const w = world();
    expect(w.podsView(START_MS, { includeClusterPods: false }).map((pod) => pod.id)).toEqual(['solo']);
    const all = w.podsView(START_MS, { includeClusterPods: true });
    expect(all.map((pod) => pod.id)).toEqual(['solo', 'node-0', 'node-1']);
    expect(all[1]?.cluster).toEqual({ id: 'cl-1', rank: 0, role: 'SLURM_CONTROLLER', ip: '10.65.0.2' });
    expect(all[2]?.cluster).toMatchObject({ rank: 1, role: 'SLURM_COMPUTE' });
    expect(all[0]?.cluster).toBeUndefined();
  });

  it('members cannot be acted on through the Pod endpoints (409)', () => {
    const result = world().podAction('node-1', 'terminate', START_MS);
    expect(result).toEqual({
      ok: false,
      status: 409,
      detail: 'pod node-1 belongs to cluster cl-1; manage it through /v2/clusters/cl-1',
    });
  });

  it('the cluster summarises its members', () => {
    expect(
      world()
        .clustersView(START_MS)
        .find((cluster) => cluster.id === 'cl-1'),
    ).toMatchObject({
      id: 'cl-1',
      type: 'SLURM',
      compute: { gpuTypeId: H100, gpuCountPerPod: 8, podCount: 2 },
      pods: { total: 2, byStatus: { RUNNING: 2 } },
      primary: { podId: 'node-0', status: 'RUNNING' },
    });
  });
});

describe('world: time', () => {
  it('applies owner events in time order as time passes', () => {
    const world = worldOf({
      pods: [
        gpuPod('a', {
          events: [
            { at: '2h', action: 'start' },
            { at: '1h', action: 'stop' },
            { at: '3h', action: 'terminate' },
          ],
        }),
      ],
    });
    expect(world.podStatuses(START_MS + HOUR - 1).a).toBe('RUNNING');
    expect(world.podStatuses(START_MS + HOUR).a).toBe('EXITED');
    expect(world.podStatuses(START_MS + 2 * HOUR).a).toBe('PROVISIONING');
    expect(world.podStatuses(START_MS + 2 * HOUR + MINUTE).a).toBe('RUNNING');
    expect(world.podStatuses(START_MS + 3 * HOUR).a).toBe('TERMINATED');
    expect(world.skippedEvents).toEqual([]);
  });

  it('records an owner event that is not valid when it comes due, and goes on', () => {
    const world = worldOf({ pods: [gpuPod('a', { status: 'EXITED', events: [{ at: '1h', action: 'stop' }] })] });
    expect(world.podStatuses(START_MS + 2 * HOUR).a).toBe('EXITED');
    expect(world.skippedEvents).toEqual([
      {
        atMs: START_MS + HOUR,
        podId: 'a',
        action: 'stop',
        detail: 'cannot stop pod a while it is EXITED (valid actions: start, terminate)',
      },
    ]);
  });

  it('never goes backwards: an earlier time reads as the present', () => {
    const world = worldOf({ pods: [gpuPod('a', { events: [{ at: '1h', action: 'stop' }] })] });
    expect(world.podStatuses(START_MS + 2 * HOUR).a).toBe('EXITED');
    expect(world.podStatuses(START_MS).a).toBe('EXITED');
  });
});

describe('world: a Pod that never boots (stuck)', () => {
  it('stays PROVISIONING since it was created, billed its cost, with no runtime and no startedAt', () => {
    const world = worldOf({
      pods: [gpuPod('never', { status: 'PROVISIONING', createdAt: '-10m', stuck: 'PROVISIONING', volumeGb: 20 })],
    });
    const pod = world.podView('never', START_MS + 2 * HOUR);
    expect(pod).toMatchObject({ status: 'PROVISIONING', cost: 3.6, runtime: null, startedAt: null });
    expect(pod?.actions).toEqual(['stop', 'terminate']);
    // 2 h 10 min at $3.60/h of compute, from its creation.
    const billed = world.accrued(START_MS + 2 * HOUR, {
      kind: 'pods',
      fromMs: START_MS - HOUR,
      toMs: START_MS + 2 * HOUR,
    });
    expect(billed.gpuAmount).toBeCloseTo(3.6 * (130 / 60), 6);
  });

  it('stops every start where it is stuck, and a stop ends the billing', () => {
    const world = worldOf({
      pods: [
        gpuPod('hangs', {
          status: 'RUNNING',
          startedAt: '-1h',
          stuck: 'STARTING',
          events: [
            { at: '1h', action: 'stop' },
            { at: '2h', action: 'start' },
            { at: '5h', action: 'stop' },
          ],
        }),
      ],
    });
    expect(world.podStatuses(START_MS + 2 * HOUR + 10 * SECOND).hangs).toBe('PROVISIONING');
    expect(world.podStatuses(START_MS + 4 * HOUR).hangs).toBe('STARTING');
    expect(world.podView('hangs', START_MS + 4 * HOUR)).toMatchObject({
      runtime: null,
      startedAt: iso(START_MS - HOUR),
    });
    expect(world.podStatuses(START_MS + 6 * HOUR).hangs).toBe('EXITED');
    const billed = world.accrued(START_MS + 6 * HOUR, {
      kind: 'pods',
      fromMs: START_MS - HOUR,
      toMs: START_MS + 6 * HOUR,
    });
    // RUNNING 2 h, then provisioning and starting 3 h.
    expect(billed.gpuAmount).toBeCloseTo(3.6 * 5, 6);
  });

  it('refuses a Pod stuck in PROVISIONING that is STARTING', () => {
    expect(() => worldOf({ pods: [gpuPod('x', { status: 'STARTING', stuck: 'PROVISIONING' })] })).toThrow(
      'pods[0].stuck: a Pod stuck in PROVISIONING never gets to STARTING (status is STARTING)',
    );
  });
});
