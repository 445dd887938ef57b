import { describe, expect, it } from 'vitest';
import { finishRun, lastSuccessAt, startRun } from '../../src/db/collector-runs.js';
import type { Database } from '../../src/db/open.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { applyRetention, type RetentionResult } from '../../src/db/retention.js';
import { insertWorkerSamples } from '../helpers/store.js';
import { DAY, HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const policy = { rawSamplesMs: HOUR, fiveMinuteRollupsMs: DAY, rollupsMs: DAY, usedLinksMs: DAY, outboxMs: DAY };
const nothing: RetentionResult = {
  rolled5m: 0,
  rolled1h: 0,
  rawSamplesDeleted: 0,
  rollups5mDeleted: 0,
  rollups1hDeleted: 0,
  workerSamplesDeleted: 0,
  collectorRunsDeleted: 0,
  usedLinksDeleted: 0,
  emailsDeleted: 0,
  alertmanagerDeliveriesDeleted: 0,
};

function sample(podId: string, observedAt: number, overrides: Partial<PodSampleInput> = {}): PodSampleInput {
  return {
    podId,
    observedAt,
    state: 'known',
    uptimeS: 60,
    gpuUtil: [0],
    gpuMemoryUtil: [0],
    cpuUtil: 10,
    memoryUtil: 50,
    ...overrides,
  };
}

const unknown = {
  state: 'unknown',
  uptimeS: null,
  gpuUtil: null,
  gpuMemoryUtil: null,
  cpuUtil: null,
  memoryUtil: null,
} as const;

/**
 * Two hours of minute samples: GPU Pod `gpu` is busy at `minute`% on its busiest GPU and unknown
 * for minutes 10–14; CPU Pod `cpu` has no GPU. Plus one sample in another account.
 */
async function seed(database: Database): Promise<void> {
  const samples: PodSampleInput[] = [];
  for (let minute = 0; minute < 120; minute++) {
    const at = T0 + minute * MINUTE;
    const gpu = minute >= 10 && minute < 15 ? unknown : { gpuUtil: [minute % 60, 0], gpuMemoryUtil: [20, 30] };
    samples.push(sample('gpu', at, gpu));
    samples.push(sample('cpu', at, { gpuUtil: null, gpuMemoryUtil: null, cpuUtil: minute % 2 === 0 ? 20 : 40 }));
  }
  await insertPodSamples(database, 'main', samples);
  await insertPodSamples(database, 'other', [sample('x', T0)]);
}

function rollups(database: Database, table: 'pod_samples_5m' | 'pod_samples_1h', podId: string) {
  return database.sqlite
    .prepare(`SELECT * FROM ${table} WHERE account = 'main' AND pod_id = ? ORDER BY bucket_start_at`)
    .all(podId) as Array<Record<string, number | string | null>>;
}

describe('applyRetention', () => {
  it('rolls whole hours older than the raw retention into 5m and 1h buckets, then deletes them', async () => {
    const database = temp.open();
    await seed(database);
    // Raw cutoff: 2h30m - 1h = 1h30m, aligned down to the hour: T0 + 1h.
    const result = await applyRetention(database, policy, T0 + 2 * HOUR + 30 * MINUTE);
    expect(result).toEqual({ ...nothing, rolled5m: 12 + 12 + 1, rolled1h: 3, rawSamplesDeleted: 60 + 60 + 1 });

    const remaining = database.sqlite.prepare('SELECT min(observed_at) AS first, count(*) AS n FROM pod_samples').get();
    expect(remaining).toEqual({ first: T0 + HOUR, n: 120 });

    const fiveMinutes = rollups(database, 'pod_samples_5m', 'gpu');
    expect(fiveMinutes).toHaveLength(12);
    expect(fiveMinutes[0]).toMatchObject({
      bucket_start_at: T0,
      known_count: 5,
      unknown_count: 0,
      avg_gpu_util: 2, // busiest GPU at 0..4 %
      max_gpu_util: 4,
      avg_gpu_memory_util: 30,
      max_gpu_memory_util: 30,
      avg_cpu_util: 10,
      avg_memory_util: 50,
    });
    // Minutes 10–14 were unknown: counted, and never averaged in as idle.
    expect(fiveMinutes[2]).toMatchObject({
      bucket_start_at: T0 + 10 * MINUTE,
      known_count: 0,
      unknown_count: 5,
      avg_gpu_util: null,
      max_gpu_util: null,
    });

    const [hour] = rollups(database, 'pod_samples_1h', 'gpu');
    const knownMinutes = Array.from({ length: 60 }, (_, m) => m).filter((m) => m < 10 || m >= 15);
    expect(hour).toMatchObject({ bucket_start_at: T0, known_count: 55, unknown_count: 5, max_gpu_util: 59 });
    expect(hour?.avg_gpu_util).toBeCloseTo(knownMinutes.reduce((a, b) => a + b, 0) / 55, 10);

    const [cpuHour] = rollups(database, 'pod_samples_1h', 'cpu');
    expect(cpuHour).toMatchObject({
      known_count: 60,
      avg_gpu_util: null,
      max_gpu_util: null,
      avg_cpu_util: 30,
      max_cpu_util: 40,
    });
  });

  it('is idempotent: a second run at the same time changes nothing', async () => {
    const database = temp.open();
    await seed(database);
    const now = T0 + 2 * HOUR + 30 * MINUTE;
    await applyRetention(database, policy, now);
    const before = database.sqlite.prepare('SELECT * FROM pod_samples_5m UNION ALL SELECT * FROM pod_samples_1h').all();
    expect(await applyRetention(database, policy, now)).toEqual(nothing);
    expect(
      database.sqlite.prepare('SELECT * FROM pod_samples_5m UNION ALL SELECT * FROM pod_samples_1h').all(),
    ).toEqual(before);
  });

  it('merges a late sample into the buckets already rolled', async () => {
    const database = temp.open();
    await seed(database);
    const now = T0 + 2 * HOUR + 30 * MINUTE;
    await applyRetention(database, policy, now);
    await insertPodSamples(database, 'main', [sample('gpu', T0 + 30_000, { gpuUtil: [100], gpuMemoryUtil: [90] })]);

    expect(await applyRetention(database, policy, now)).toEqual({
      ...nothing,
      rolled5m: 1,
      rolled1h: 1,
      rawSamplesDeleted: 1,
    });
    expect(rollups(database, 'pod_samples_5m', 'gpu')[0]).toMatchObject({
      known_count: 6,
      max_gpu_util: 100,
      max_gpu_memory_util: 90,
    });
    expect(rollups(database, 'pod_samples_5m', 'gpu')[0]?.avg_gpu_util).toBeCloseTo((0 + 1 + 2 + 3 + 4 + 100) / 6, 10);
    const [hour] = rollups(database, 'pod_samples_1h', 'gpu');
    expect(hour).toMatchObject({ known_count: 56, unknown_count: 5, max_gpu_util: 100 });
    expect(hour?.avg_gpu_memory_util).toBeCloseTo((55 * 30 + 90) / 56, 10);
  });

  it('drops rollups older than the rollup retention and worker samples older than the raw retention', async () => {
    const database = temp.open();
    await seed(database);
    await applyRetention(database, policy, T0 + 2 * HOUR + 30 * MINUTE);
    await insertWorkerSamples(database, 'main', [
      {
        endpointId: 'ep-1',
        observedAt: T0 + 3 * HOUR,
        running: 1,
        idle: 0,
        initializing: 0,
        throttled: 0,
        unhealthy: 0,
        total: 1,
      },
      {
        endpointId: 'ep-1',
        observedAt: T0 + DAY,
        running: 0,
        idle: 1,
        initializing: 0,
        throttled: 0,
        unhealthy: 0,
        total: 1,
      },
    ]);
    // A day later: rollups that start before T0 + 10 min go, the rest of the raw samples are rolled.
    const result = await applyRetention(database, policy, T0 + DAY + 10 * MINUTE);
    expect(result).toMatchObject({
      rawSamplesDeleted: 120,
      rollups5mDeleted: 2 + 2 + 1,
      rollups1hDeleted: 1 + 1 + 1,
      workerSamplesDeleted: 1,
    });
    expect(rollups(database, 'pod_samples_5m', 'gpu')[0]?.bucket_start_at).toBe(T0 + 10 * MINUTE);
    expect(rollups(database, 'pod_samples_1h', 'gpu').map((row) => row.bucket_start_at)).toEqual([T0 + HOUR]);
    expect(database.sqlite.prepare('SELECT observed_at FROM endpoint_worker_samples').pluck().all()).toEqual([
      T0 + DAY,
    ]);
  });

  it('keeps each rollup level for its own retention: 5-minute buckets go first, hourly ones stay', async () => {
    const database = temp.open();
    await seed(database);
    const levels = {
      rawSamplesMs: HOUR,
      fiveMinuteRollupsMs: 3 * HOUR,
      rollupsMs: DAY,
      usedLinksMs: DAY,
      outboxMs: DAY,
    };
    // Raw cutoff T0 + 3h: both hours are rolled. 5-minute buckets before T0 + 1h10m are dropped.
    const result = await applyRetention(database, levels, T0 + 4 * HOUR + 10 * MINUTE);
    expect(result).toEqual({
      ...nothing,
      rolled5m: 24 + 24 + 1,
      rolled1h: 2 + 2 + 1,
      rawSamplesDeleted: 120 + 120 + 1,
      rollups5mDeleted: 14 + 14 + 1,
    });
    const kept5m = rollups(database, 'pod_samples_5m', 'gpu').map((row) => row.bucket_start_at);
    expect(kept5m).toEqual(Array.from({ length: 10 }, (_, i) => T0 + 70 * MINUTE + i * 5 * MINUTE));
    expect(rollups(database, 'pod_samples_1h', 'gpu').map((row) => row.bucket_start_at)).toEqual([T0, T0 + HOUR]);
    expect(rollups(database, 'pod_samples_1h', 'cpu')).toHaveLength(2);

    // A day later the hourly level goes too, and nothing is left to roll or drop twice.
    expect(await applyRetention(database, levels, T0 + DAY + 2 * HOUR)).toEqual({
      ...nothing,
      rollups5mDeleted: 10 + 10,
      rollups1hDeleted: 2 + 2 + 1,
    });
    expect(await applyRetention(database, levels, T0 + DAY + 2 * HOUR)).toEqual(nothing);
  });

  it('prunes old collector runs but keeps each collector’s last success and runs in flight', async () => {
    const database = temp.open();
    const run = async (collector: string, at: number, outcome: 'ok' | 'error' | null) => {
      const id = await startRun(database, { account: 'main', collector, startedAt: at });
      if (outcome) await finishRun(database, id, { endedAt: at + 1000, outcome, rows: 1 });
      return id;
    };
    await run('pods', T0, 'ok');
    await run('pods', T0 + MINUTE, 'ok');
    await run('pods', T0 + 2 * MINUTE, 'error');
    await run('billing', T0, 'ok');
    await run('billing', T0 + 3 * HOUR, 'ok');
    await run('catalog', T0, null);

    const result = await applyRetention(database, policy, T0 + 3 * HOUR + MINUTE);
    expect(result.collectorRunsDeleted).toBe(3);
    expect(await lastSuccessAt(database, 'main', 'pods')).toBe(T0 + MINUTE + 1000);
    expect(database.sqlite.prepare('SELECT collector, started_at FROM collector_runs ORDER BY id').all()).toEqual([
      { collector: 'pods', started_at: T0 + MINUTE },
      { collector: 'billing', started_at: T0 + 3 * HOUR },
      { collector: 'catalog', started_at: T0 },
    ]);
  });
});
