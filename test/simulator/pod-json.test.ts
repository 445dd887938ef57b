import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import type { PodAction } from '../../src/simulator/v2-types.js';
import { World } from '../../src/simulator/world.js';
import { get, gpuPod, H100, HOUR, MINUTE, SECOND, START_MS, worldOf } from './world-fixtures.js';

/**
 * The Pod list is sent as text built from parts kept per Pod (pod-json.ts); it must be the very
 * bytes that encoding the records as objects gives, minute after minute, whatever happened to
 * the Pods in between.
 */

function expectSameText(world: World, t: number, includeClusterPods: boolean, label: string): number {
  const objects = world.podsView(t, { includeClusterPods });
  expect(world.podsJson(t, { includeClusterPods }), label).toBe(JSON.stringify(objects));
  return objects.length;
}

describe('Pod list as text', () => {
  it('matches the encoded records every minute of the small-team day, cluster members with and without', () => {
    const scenario = loadScenario(packagePath('config/scenarios', 'small-team.yaml'));
    const world = new World(scenario);
    const statuses = new Set<string>();
    let withRuntime = 0;
    let gaps = 0;
    for (let t = scenario.startMs; t <= scenario.startMs + 24 * HOUR; t += MINUTE) {
      expectSameText(world, t, true, `all at minute ${(t - scenario.startMs) / MINUTE}`);
      expectSameText(world, t, false, `no cluster members at minute ${(t - scenario.startMs) / MINUTE}`);
      for (const pod of world.podsView(t, { includeClusterPods: true })) {
        statuses.add(pod.status);
        if (pod.runtime) withRuntime++;
        else if (pod.status === 'RUNNING') gaps++;
      }
    }
    // The day went through what the parts are kept across: stops, starts, telemetry gaps.
    expect([...statuses].sort()).toEqual(expect.arrayContaining(['EXITED', 'RUNNING']));
    expect(withRuntime).toBeGreaterThan(1000);
    expect(gaps).toBeGreaterThan(0);
  });

  // Listed every 10 s, the STARTING between a restart and RUNNING is seen; every 5 minutes it is
  // not, and only startedAt and uptime tell the new container from the old.
  it.each([10 * SECOND, 5 * MINUTE])('follows actions taken between two lists, listed every %i ms', (step) => {
    const world = worldOf({
      pods: [
        gpuPod('multi', {
          gpu: { id: H100, count: 2 },
          startedAt: '-1h',
          volumeGb: 20,
          utilization: [
            { at: '0s', gpus: [90, 5], gpuMemory: [80, 1], memory: 50, cpu: 12 },
            { at: '20m', runtime: null },
            { at: '30m', gpu: 1, memory: 3 },
          ],
        }),
        gpuPod('one', { status: 'EXITED' }),
        gpuPod('locked', { locked: true, startedAt: '-2h' }),
      ],
    });
    const steps: Array<[number, string, PodAction]> = [
      [5 * MINUTE, 'multi', 'restart'],
      [5 * MINUTE, 'one', 'start'],
      [10 * MINUTE, 'locked', 'terminate'],
      [20 * MINUTE, 'multi', 'stop'],
      [25 * MINUTE, 'multi', 'start'],
      [40 * MINUTE, 'one', 'terminate'],
    ];
    for (let t = START_MS; t <= START_MS + HOUR; t += step) {
      expectSameText(world, t, true, `before actions at +${(t - START_MS) / SECOND}s`);
      for (const [at, id, action] of steps) {
        if (at !== t - START_MS) continue;
        expect(world.podAction(id, action, t).ok, `${action} ${id}`).toBe(true);
        if (step < MINUTE) expectSameText(world, t, true, `right after ${action} ${id}`);
      }
    }
    expect(expectSameText(world, START_MS + HOUR, true, 'at the end')).toBe(1);
  });

  it('is what GET /v2/pods sends', () => {
    const world = worldOf({ pods: [gpuPod('a', { startedAt: '-1h' }), gpuPod('b', { status: 'EXITED' })] });
    const reply = get(world, '/v2/pods', START_MS + MINUTE);
    expect(reply.json).toBe(JSON.stringify({ pods: world.podsView(START_MS + MINUTE, { includeClusterPods: false }) }));
    expect((reply.body as { pods: unknown[] }).pods).toHaveLength(2);
  });

  it('matches for the 2,000 Pods of large over a few minutes', () => {
    const scenario = loadScenario(packagePath('config/scenarios', 'large.json'));
    const world = new World(scenario);
    for (let minute = 0; minute < 4; minute++) {
      expect(expectSameText(world, scenario.startMs + minute * MINUTE, true, `minute ${minute}`)).toBeGreaterThan(1500);
    }
  });
});
