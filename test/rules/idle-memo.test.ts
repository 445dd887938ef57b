import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.js';
import type { IdleRuleConfig } from '../../src/config/sections/idle.js';
import type { PodRecord } from '../../src/db/pods.js';
import type { SampleSeries } from '../../src/db/sample-window.js';
import { assessPods, type IdleInput, isIdle } from '../../src/rules/idle.js';
import { AssessmentMemo } from '../../src/rules/idle-memo.js';
import { seededRandom } from '../helpers/seeded-random.js';

const MIN = 60_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');
const rule = defaultConfig([{ name: 'a', apiKey: 'k' }]).idle.rules[0] as IdleRuleConfig;

function podRecord(podId: string, startedAt: number): PodRecord {
  return {
    account: 'a',
    podId,
    name: podId,
    status: 'RUNNING',
    costPerHr: 0.69,
    gpuTypeId: 'NVIDIA GeForce RTX 4090',
    gpuCount: 1,
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
    createdAt: startedAt,
    startedAt,
    firstSeenAt: startedAt,
    goneAt: null,
  };
}

/** A series that grows at the end, as the sample window's do between ticks. */
function growingSeries(podId: string) {
  const series = {
    podId,
    start: 0,
    observedAt: [] as number[],
    known: [] as number[],
    uptimeS: [] as number[],
    maxGpuUtil: [] as number[],
    maxGpuMemoryUtil: [] as number[],
    landed: 0,
    rewritten: 1,
  };
  const push = (at: number, known: boolean, gpu: number, memory: number, uptimeS: number) => {
    series.observedAt.push(at);
    series.known.push(known ? 1 : 0);
    series.uptimeS.push(known ? uptimeS : Number.NaN);
    series.maxGpuUtil.push(known ? gpu : Number.NaN);
    series.maxGpuMemoryUtil.push(known ? memory : Number.NaN);
    series.landed += 1;
  };
  return { series: series as SampleSeries, push };
}

describe('AssessmentMemo', () => {
  it('gives the verdict a fresh judgement gives at every tick, with or without new samples, and skips the rule when it can', () => {
    // Pods that flip between busy and idle for long and short stretches, miss polls, report no
    // runtime, restart (grace) and get snoozed; ticks every 7.5 s while samples land every minute.
    const next = seededRandom(7);
    const pods = Array.from({ length: 8 }, (_, i) => ({
      pod: podRecord(`p${i}`, T0 - 3 * 60 * MIN),
      ...growingSeries(`p${i}`),
      busy: i % 2 === 0,
      startedAt: T0 - 3 * 60 * MIN,
    }));
    const memo = new AssessmentMemo();
    const rules = [rule];
    const snoozes = new Map<string, number>();
    let compared = 0;
    const seen = new Set<string>();
    for (let tick = 0; tick < 3 * 60 * 8; tick++) {
      const now = T0 + tick * 7_500;
      if (now % MIN === 0) {
        for (const p of pods) {
          // Long stretches: 3 % a minute to change state; a poll now and then missed or without runtime.
          if (next() < 0.03) p.busy = !p.busy;
          if (next() < 0.005) p.startedAt = now - 30_000;
          const roll = next();
          if (roll < 0.03) continue;
          // Observed 5 s ahead of the tick that reads it first (clocks differ): ignored until then.
          p.push(
            now + 5_000,
            roll > 0.06,
            p.busy ? 40 + next() * 50 : next() * 5,
            next() < 0.5 ? 50 : 2,
            (now - p.startedAt) / 1000,
          );
        }
      }
      if (tick === 200) snoozes.set('p3', now + 25 * MIN);
      if (tick === 600) snoozes.delete('p3');
      const activeSnoozes = new Map([...snoozes].filter(([, until]) => until > now));
      const input: IdleInput = {
        pods: pods.map((p) => p.pod),
        series: new Map(pods.map((p) => [p.pod.podId, p.series])),
        rules,
        snoozes: activeSnoozes,
        now,
        pollIntervalMs: MIN,
      };
      const fresh = assessPods(input);
      const kept = assessPods(input, memo);
      for (const [i, a] of kept.entries()) {
        const b = fresh[i];
        expect({ tick, pod: a.pod.podId, verdict: a.verdict, reason: a.reason }).toEqual({
          tick,
          pod: b?.pod.podId,
          verdict: b?.verdict,
          reason: b?.reason,
        });
        // What findings and receipts quote is always this tick's evidence.
        if (isIdle(a)) expect(a.evidence?.to).toBe(now);
        compared += 1;
        seen.add(a.verdict);
      }
    }
    expect(compared).toBe(8 * 3 * 60 * 8);
    // The run went through every verdict the rule gives a running GPU Pod.
    expect([...seen].sort()).toEqual(['active', 'grace', 'held_idle', 'idle', 'snoozed', 'unknown']);
    // Most ticks reuse the verdicts of busy Pods; the rule still ran for every change.
    expect(memo.reused).toBeGreaterThan(compared / 4);
    expect(memo.judged).toBeGreaterThan(compared / 10);
  });
});
