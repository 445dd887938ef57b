import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import { insertPodSamples, type PodInput, type PodSampleInput, syncPods } from '../../src/db/pods.js';
import { podPollIntervalMs } from '../../src/db/sample-horizon.js';
import { sampleWindow } from '../../src/db/sample-window.js';
import { idleEpisodes } from '../../src/db/schema.js';
import { readAccountSnapshot } from '../../src/db/snapshot.js';
import { assessPods, type IdleInput, idleClusters, receiptEvidence } from '../../src/rules/idle.js';
import { snapshotWindow } from '../../src/rules/snapshot-window.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const ACCOUNT = 'main';

function pod(i: number): PodInput {
  return {
    podId: `pod-${String(i).padStart(3, '0')}`,
    name: `pod-${i}`,
    status: 'RUNNING',
    costPerHr: 1,
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    gpuCount: 1 + (i % 3),
    cpuTypeId: null,
    cloud: 'SECURE',
    dataCenterId: 'US-KS-2',
    clusterId: null,
    clusterRole: null,
    volumeGb: 50,
    networkVolumeId: null,
    env: {},
    actions: ['stop'],
    locked: 0,
    createdAt: T0 - 60 * MINUTE,
    startedAt: T0 - 60 * MINUTE,
  };
}

describe('the tick snapshot without the samples of busy Pods', () => {
  it('leaves out Pods busy by every rule, and every Pod gets the verdict and evidence of the whole window', async () => {
    const database = temp.open();
    const config = defaultConfig([{ name: ACCOUNT, apiKey: 'key' }]);
    const base = config.idle.rules[0];
    if (!base) throw new Error('the default configuration has an idle rule');
    // A second rule with a shorter window and a higher threshold, for half the Pods.
    config.idle.rules = [
      { ...base, name: 'strict', utilThreshold: 30, windowMs: 15 * MINUTE, match: { podIds: [], names: ['pod-1*'] } },
      base,
    ];
    // Besides: a Pod stopped, one without GPUs, and two clusters (judged on evidence, never stopped).
    const pods = Array.from({ length: 40 }, (_, i) => {
      if (i === 7) return { ...pod(i), status: 'EXITED' };
      if (i === 8) return { ...pod(i), gpuCount: 0 };
      return i >= 30 && i % 5 <= 2 ? { ...pod(i), clusterId: `cl-${i % 5}` } : pod(i);
    });
    await syncPods(database, ACCOUNT, pods, T0);
    const next = seededRandom(7);
    const now = T0 + 60 * MINUTE + 30_000;
    for (let minute = 0; minute <= 60; minute++) {
      const at = T0 + minute * MINUTE;
      const samples: PodSampleInput[] = [];
      pods.forEach((p, i) => {
        // Kinds: idle, busy, a burst a while ago, bursts near the threshold, flaky telemetry.
        const kind = i % 5;
        if (kind === 4 && next() < 0.3) return; // a missed poll
        const unknown = kind === 4 && next() < 0.2;
        const figure = [0, 90, minute > 35 && minute < 40 ? 80 : 2, Math.floor(next() * 40), Math.floor(next() * 4)][
          kind
        ] as number;
        samples.push({
          podId: p.podId,
          observedAt: at,
          state: unknown ? 'unknown' : 'known',
          uptimeS: unknown ? null : 3600 + minute * 60,
          gpuUtil: unknown ? null : Array<number>(p.gpuCount ?? 1).fill(figure),
          gpuMemoryUtil: unknown ? null : Array<number>(p.gpuCount ?? 1).fill(figure / 2),
          cpuUtil: null,
          memoryUtil: null,
        });
      });
      await insertPodSamples(database, ACCOUNT, samples);
    }
    // A sample from after the tick's time: the Pod is not taken as busy on it.
    await insertPodSamples(database, ACCOUNT, [{ ...sampleOf(pods[0] as PodInput, now + MINUTE), gpuUtil: [99] }]);

    // An open episode ends with the window's samples in its receipt: that Pod's are read.
    database.db
      .insert(idleEpisodes)
      .values({ account: ACCOUNT, podId: 'pod-001', startedAt: T0, rule: 'strict' })
      .run();

    const window = snapshotWindow(config, now);
    const snapshot = await readAccountSnapshot(database, ACCOUNT, window);
    const whole = await sampleWindow(database, ACCOUNT, window.samplesFrom, now);
    expect(snapshot.busy.size).toBeGreaterThan(0);
    expect(snapshot.busy.has('pod-000')).toBe(false);
    expect(snapshot.busy.has('pod-001')).toBe(false);
    expect(snapshot.busy.has('pod-006')).toBe(true);
    for (const podId of snapshot.busy) expect(snapshot.samples.has(podId)).toBe(false);
    // Only the Pods judged on their samples: RUNNING, with GPUs, not busy.
    expect(snapshot.samples.has('pod-007')).toBe(false);
    expect(snapshot.samples.has('pod-008')).toBe(false);
    expect(snapshot.samples.size + snapshot.busy.size).toBe(whole.size - 2);

    const input = (series: IdleInput['series'], busy: IdleInput['busy']): IdleInput => ({
      pods: snapshot.pods,
      series,
      busy,
      rules: config.idle.rules,
      snoozes: new Map(),
      now,
      pollIntervalMs: podPollIntervalMs(config, now),
    });
    const judged = assessPods(input(snapshot.samples, snapshot.busy));
    const reference = assessPods(input(whole, undefined));
    const verdicts = (list: typeof judged) => list.map((a) => [a.pod.podId, a.verdict, a.reason]);
    expect(verdicts(judged)).toEqual(verdicts(reference));
    expect(new Set(judged.map((a) => a.verdict))).toEqual(
      new Set(['active', 'idle', 'unknown', 'not_running', 'not_gpu', 'cluster_member']),
    );
    expect(idleClusters(input(snapshot.samples, snapshot.busy))).toEqual(idleClusters(input(whole, undefined)));
    expect(idleClusters(input(whole, undefined)).length).toBeGreaterThan(0);
    judged.forEach((a, i) => {
      if (snapshot.busy.has(a.pod.podId)) return;
      expect(receiptEvidence(a)).toEqual(receiptEvidence(reference[i] as (typeof reference)[number]));
      expect(a.runningSince).toBe(reference[i]?.runningSince);
    });
  });
});

function sampleOf(p: PodInput, at: number): PodSampleInput {
  return {
    podId: p.podId,
    observedAt: at,
    state: 'known',
    uptimeS: 60,
    gpuUtil: [0],
    gpuMemoryUtil: [0],
    cpuUtil: null,
    memoryUtil: null,
  };
}
