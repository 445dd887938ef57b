import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import type { IdleRuleConfig } from '../../src/config/sections/idle.js';
import { byPod } from '../../src/db/group-by.js';
import type { PodRecord } from '../../src/db/pods.js';
import { assessPods, type IdleInput, idleClusters } from '../../src/rules/idle.js';
import { seriesOf, type WindowSample } from '../../src/rules/idle-samples.js';

const MIN = 60_000;
const NOW = Date.parse('2026-11-02T12:00:30Z');
const base = defaultConfig([{ name: 'a', apiKey: 'k' }]).idle.rules[0] as IdleRuleConfig;

function podRecord(podId: string, change: Partial<PodRecord> = {}): PodRecord {
  return {
    account: 'a',
    podId,
    name: podId,
    status: 'RUNNING',
    costPerHr: 0.69,
    gpuTypeId: 'NVIDIA GeForce RTX 4090',
    gpuCount: 1,
    cloud: 'SECURE',
    dataCenterId: 'US-KS-2',
    clusterId: null,
    volumeGb: 50,
    networkVolumeId: null,
    env: {},
    locked: 0,
    createdAt: NOW - 86_400_000,
    startedAt: NOW - 10 * 3_600_000,
    firstSeenAt: NOW - 86_400_000,
    goneAt: null,
    ...change,
  };
}

/** One sample a minute for the last `count` minutes (the newest 30 s ago). */
function minutes(podId: string, count: number, gpu: number | null, memory: number | null = 0): WindowSample[] {
  return Array.from({ length: count }, (_, i) => ({
    podId,
    observedAt: NOW - 30_000 - (count - 1 - i) * MIN,
    state: 'known' as const,
    uptimeS: 36_000,
    maxGpuUtil: gpu,
    maxGpuMemoryUtil: memory,
  }));
}

function input(pods: PodRecord[], samples: WindowSample[], change: Partial<IdleInput> = {}): IdleInput {
  const sorted = [...samples].sort((x, y) => x.observedAt - y.observedAt || x.podId.localeCompare(y.podId));
  return {
    pods,
    series: new Map([...byPod(sorted)].map(([podId, listed]) => [podId, seriesOf(podId, listed)])),
    rules: [base],
    snoozes: new Map(),
    now: NOW,
    pollIntervalMs: MIN,
    ...change,
  };
}

const verdicts = (i: IdleInput) => Object.fromEntries(assessPods(i).map((a) => [a.pod.podId, a.verdict]));

describe('assessPods', () => {
  it('judges each Pod from its own samples over the window', () => {
    const pods = ['idle', 'held', 'busy', 'short', 'blind'].map((id) => podRecord(id));
    const samples = [
      ...minutes('idle', 40, 0),
      ...minutes('held', 40, 0, 41),
      ...minutes('busy', 40, 0).map((s, i) => (i === 25 ? { ...s, maxGpuUtil: 60 } : s)),
      ...minutes('short', 20, 0),
      ...minutes('blind', 40, null),
    ];
    expect(verdicts(input(pods, samples))).toEqual({
      idle: 'idle',
      held: 'held_idle',
      busy: 'active',
      short: 'unknown',
      blind: 'unknown',
    });
  });

  it('gives no Pod less than its grace after a (re)start, from startedAt or from the uptime', () => {
    const fresh = podRecord('fresh', { startedAt: NOW - 10 * MIN });
    const restarted = podRecord('restarted');
    const samples = [
      ...minutes('fresh', 40, 0),
      ...minutes('restarted', 40, 0).map((s) => ({ ...s, uptimeS: 8 * 60 })),
    ];
    const assessed = assessPods(input([fresh, restarted], samples));
    expect(assessed.map((a) => a.verdict)).toEqual(['grace', 'grace']);
    expect(assessed[1]?.runningSince).toBe(NOW - 30_000 - 8 * MIN);
  });

  it('says why a Pod is not considered at all', () => {
    const pods = [
      podRecord('exited', { status: 'EXITED' }),
      podRecord('cpu', { gpuCount: null, gpuTypeId: null }),
      podRecord('member', { clusterId: 'cl-1' }),
      podRecord('ignored', { env: { PODWARDEN_IGNORE: 'true' } }),
      podRecord('snoozed'),
    ];
    const samples = pods.flatMap((pod) => minutes(pod.podId, 40, 0));
    const snoozes = new Map([['snoozed', NOW + MIN]]);
    expect(verdicts(input(pods, samples, { snoozes }))).toEqual({
      exited: 'not_running',
      cpu: 'not_gpu',
      member: 'cluster_member',
      ignored: 'excluded',
      snoozed: 'snoozed',
    });
    expect(verdicts(input([podRecord('p')], minutes('p', 40, 0), { rules: [] }))).toEqual({ p: 'unmatched' });
  });

  it('explains an unknown verdict with the coverage it found', () => {
    // 19.5 minutes of history (podwarden started then): too little, though no gap.
    const [assessed] = assessPods(input([podRecord('p')], minutes('p', 20, 0)));
    expect(assessed?.verdict).toBe('unknown');
    expect(assessed?.reason).toBe('known idle samples (20) cover 65% of the window (need 90%, 3 samples)');
  });

  it('restarts the evidence after a telemetry gap: idle minutes from before it no longer allow a stop', () => {
    // Idle throughout, but three polls missed 9 minutes ago: 93% of the window is vouched idle
    // (enough before), yet only the 5.5 minutes since the gap count now.
    const all = minutes('p', 40, 0);
    const samples = all.filter((s) => s.observedAt < NOW - 9 * MIN || s.observedAt > NOW - 6 * MIN);
    expect(verdicts(input([podRecord('p')], all))).toEqual({ p: 'idle' });
    const [assessed] = assessPods(input([podRecord('p')], samples));
    expect(assessed?.verdict).toBe('unknown');
    expect(assessed?.reason).toBe(
      'telemetry gap: evidence restarted 2026-11-02T11:55:00Z; known idle samples (6) cover 18% of the window (need 90%, 3 samples)',
    );
  });

  it('reads the held memory threshold and the utilization threshold of the rule', () => {
    const lenient = { ...base, utilThreshold: 20, heldIdle: { memoryThreshold: 50, stop: false } };
    const samples = minutes('p', 40, 15, 41);
    expect(verdicts(input([podRecord('p')], samples))).toEqual({ p: 'active' });
    expect(verdicts(input([podRecord('p')], samples, { rules: [lenient] }))).toEqual({ p: 'idle' });
  });
});

describe('idleClusters', () => {
  it('reports a cluster whose running members are all idle, and not one with a busy member', () => {
    const pods = [
      podRecord('a-0', { clusterId: 'cl-a', costPerHr: 23.92 }),
      podRecord('a-1', { clusterId: 'cl-a', costPerHr: 23.92 }),
      podRecord('b-0', { clusterId: 'cl-b' }),
      podRecord('b-1', { clusterId: 'cl-b' }),
    ];
    const samples = [
      ...minutes('a-0', 40, 0),
      ...minutes('a-1', 40, 0, 90),
      ...minutes('b-0', 40, 0),
      ...minutes('b-1', 40, 97),
    ];
    expect(idleClusters(input(pods, samples))).toEqual([
      { clusterId: 'cl-a', podIds: ['a-0', 'a-1'], costPerHr: 47.84 },
    ]);
  });
});
