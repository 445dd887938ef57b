import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { ApiError } from '../../src/api/index.js';
import { Pod } from '../../src/api/schemas.js';
import { podsCollector, sampleOf } from '../../src/collectors/pods.js';
import { runCollector } from '../../src/collectors/run.js';
import { recentRuns } from '../../src/db/collector-runs.js';
import { livePods, podSamplesBetween, podsLastSeenAt } from '../../src/db/pods.js';
import { pods } from '../../src/db/schema.js';
import type { V2Pod } from '../../src/simulator/pod-view.js';
import { captureLogger } from '../api/support.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { emptyScenario, HOUR, MINUTE, pollAt, T0, useHarness } from './support.js';

const harness = useHarness();

function storedPods(h: Harness) {
  return h.db.sqlite.prepare('SELECT * FROM pods WHERE account = ? ORDER BY pod_id').all(ACCOUNT) as Array<
    Record<string, unknown>
  >;
}

async function samplesAt(h: Harness, at: number) {
  return new Map((await podSamplesBetween(h.db, ACCOUNT, T0 + at, T0 + at)).map((sample) => [sample.podId, sample]));
}

/** What the stored row of a Pod must hold, read from the simulator's own record of it. */
function expectedRow(pod: V2Pod) {
  return {
    podId: pod.id,
    name: pod.name,
    status: pod.status,
    costPerHr: pod.cost,
    gpuTypeId: pod.gpu?.id ?? null,
    gpuCount: pod.gpu?.count ?? null,
    cpuTypeId: pod.cpu?.id ?? null,
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    clusterId: pod.cluster?.id ?? null,
    volumeGb: pod.mounts.persistent?.size ?? null,
    networkVolumeId: pod.mounts.network?.[0]?.volumeId ?? null,
    actions: pod.actions,
    createdAt: Date.parse(pod.createdAt),
    startedAt: pod.startedAt === null ? null : Date.parse(pod.startedAt),
  };
}

describe('pods collector', () => {
  it('stores the latest state of every listed Pod, cluster members included, as the simulator serves it', async () => {
    const h = await harness('small-team.yaml');
    const result = await pollAt(h, podsCollector, 30 * MINUTE);

    const truth = h.sim.world.podsView(h.clock.now(), { includeClusterPods: true });
    const live = await livePods(h.db, ACCOUNT);
    // Every column, those only the poll reads (livePods leaves them out) included.
    const rows = h.db.db.select().from(pods).all();
    const lastSeen = await podsLastSeenAt(h.db, ACCOUNT);
    expect(live.map((row) => row.podId)).toEqual(truth.map((pod) => pod.id).sort());
    for (const pod of truth) {
      const row = rows.find((candidate) => candidate.podId === pod.id);
      expect(row, pod.id).toMatchObject(expectedRow(pod));
      expect(lastSeen.get(pod.id)).toBe(T0 + 30 * MINUTE);
    }
    expect(live.find((row) => row.podId === 'train-llama-70b')).toMatchObject({
      gpuTypeId: 'NVIDIA H100 80GB HBM3',
      gpuCount: 8,
      costPerHr: 23.92,
      volumeGb: 500,
      dataCenterId: 'US-KS-2',
      startedAt: T0 - 6 * HOUR,
    });
    expect(live.find((row) => row.podId === 'cl-pretrain-1')).toMatchObject({ clusterId: 'cl-pretrain' });
    expect(live.find((row) => row.podId === 'train-sdxl-lora')).toMatchObject({ networkVolumeId: 'vol-datasets' });
    expect(rows.find((row) => row.podId === 'cpu-etl')).toMatchObject({ cpuTypeId: 'cpu3c', gpuTypeId: null });
    expect(result.rows).toBe(live.length + (await samplesAt(h, 30 * MINUTE)).size);
  });

  it('samples the per-GPU values of the scenario timeline, one sample per running Pod', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 20 * MINUTE);
    const samples = await samplesAt(h, 20 * MINUTE);

    // 00:00–00:25 lies in the [95, 93] stretch of train-sdxl-lora's hourly cycle.
    expect(samples.get('train-sdxl-lora')).toMatchObject({
      state: 'known',
      gpuUtil: [95, 93],
      gpuMemoryUtil: [71, 69],
      maxGpuUtil: 95,
      maxGpuMemoryUtil: 71,
      cpuUtil: 30,
      memoryUtil: 48,
      uptimeS: 80 * 60,
    });
    expect(samples.get('train-llama-70b')).toMatchObject({
      gpuUtil: Array(8).fill(97),
      gpuMemoryUtil: Array(8).fill(88),
    });
    expect(samples.get('cpu-etl')).toMatchObject({ state: 'known', gpuUtil: [], maxGpuUtil: null, cpuUtil: 85 });

    const running = h.sim.world
      .podsView(h.clock.now(), { includeClusterPods: true })
      .filter((pod) => pod.status === 'RUNNING');
    expect([...samples.keys()].sort()).toEqual(running.map((pod) => pod.id).sort());
    for (const pod of running) {
      expect(samples.get(pod.id)?.gpuUtil, pod.id).toEqual(pod.runtime?.gpus.map((gpu) => gpu.util));
    }
  });

  it('records an unknown sample for a RUNNING Pod without runtime, and none for stopped or failed Pods', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 14 * HOUR + 5 * MINUTE);
    const view = new Map(h.sim.world.podsView(h.clock.now(), { includeClusterPods: true }).map((pod) => [pod.id, pod]));
    expect(view.get('infer-vllm-2')).toMatchObject({ status: 'RUNNING', runtime: null });
    expect(view.get('cpu-etl')?.status).toBe('EXITED');
    expect(view.get('eval-broken')?.status).toBe('ERROR');

    const samples = await samplesAt(h, 14 * HOUR + 5 * MINUTE);
    expect(samples.get('infer-vllm-2')).toMatchObject({
      state: 'unknown',
      uptimeS: null,
      gpuUtil: null,
      gpuMemoryUtil: null,
      maxGpuUtil: null,
      cpuUtil: null,
      memoryUtil: null,
    });
    expect(samples.has('cpu-etl')).toBe(false);
    expect(samples.has('eval-broken')).toBe(false);
    expect(samples.get('infer-vllm-1')?.state).toBe('known');
    // The stopped Pods are still stored, with their latest state.
    expect((await livePods(h.db, ACCOUNT)).find((row) => row.podId === 'cpu-etl')).toMatchObject({
      status: 'EXITED',
      costPerHr: 0,
    });
  });

  it('marks a terminated Pod gone on the next poll and keeps its row and samples', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 10 * HOUR + 50 * MINUTE);
    expect((await livePods(h.db, ACCOUNT)).map((row) => row.podId)).toContain('dev-box');

    await pollAt(h, podsCollector, 11 * HOUR + 5 * MINUTE);
    expect(h.sim.world.podStatuses(h.clock.now())['dev-box']).toBe('TERMINATED');
    expect((await livePods(h.db, ACCOUNT)).map((row) => row.podId)).not.toContain('dev-box');
    expect(storedPods(h).find((row) => row.pod_id === 'dev-box')).toMatchObject({
      status: 'RUNNING',
      last_seen_at: T0 + 10 * HOUR + 50 * MINUTE,
      gone_at: T0 + 11 * HOUR + 5 * MINUTE,
    });
    expect((await samplesAt(h, 10 * HOUR + 50 * MINUTE)).get('dev-box')?.gpuUtil).toEqual([12]);
    expect((await samplesAt(h, 11 * HOUR + 5 * MINUTE)).has('dev-box')).toBe(false);
  });

  it('stores only the env names it keeps, and no other env value reaches the database', async () => {
    const secret = 'hf_Secr3tTokenValue9876';
    const h = await harness(
      emptyScenario({
        pods: [
          {
            id: 'pod-a',
            name: 'labelled',
            cpu: { id: 'cpu3c', vcpuCount: 4, memory: 8 },
            cost: 0.2,
            env: { PODWARDEN_IGNORE: 'true', TEAM: 'vision', PROJECT: 'ocr', HF_TOKEN: secret, RUN: 'v2' },
          },
          { id: 'pod-b', name: 'bare', cpu: { id: 'cpu3c', vcpuCount: 4, memory: 8 }, cost: 0.2 },
        ],
      }),
    );
    await pollAt(h, podsCollector, MINUTE);
    const env = new Map((await livePods(h.db, ACCOUNT)).map((row) => [row.podId, row.env]));
    expect(env.get('pod-a')).toEqual({ PODWARDEN_IGNORE: 'true', PROJECT: 'ocr', TEAM: 'vision' });
    expect(env.get('pod-b')).toEqual({});
    for (const file of [h.dbPath, `${h.dbPath}-wal`]) {
      expect(readFileSync(file).includes(secret), file).toBe(false);
    }
  });

  it('also stores the env keys owners.fromEnv names, and still no other', async () => {
    const h = await harness(
      emptyScenario({
        pods: [
          {
            id: 'pod-a',
            name: 'labelled',
            cpu: { id: 'cpu3c', vcpuCount: 4, memory: 8 },
            cost: 0.2,
            env: { GIT_AUTHOR: 'alice', SQUAD: 'vision', TEAM: 'ml', HF_TOKEN: 'hf_x' },
          },
        ],
      }),
    );
    h.config.owners.fromEnv = { owner: ['GIT_AUTHOR'], team: ['SQUAD', 'TEAM'] };
    await pollAt(h, podsCollector, MINUTE);
    const [row] = await livePods(h.db, ACCOUNT);
    expect(row?.env).toEqual({ GIT_AUTHOR: 'alice', SQUAD: 'vision', TEAM: 'ml' });
  });

  it('fails the run when the list fails, leaving the previous rows and samples as they were', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 2 * HOUR + 55 * MINUTE);
    const before = storedPods(h);

    // small-team answers 503 on /v2/pods from 03:00 to 03:05, longer than the client retries.
    const failed = pollAt(h, podsCollector, 3 * HOUR);
    await expect(failed).rejects.toBeInstanceOf(ApiError);
    await expect(failed).rejects.toMatchObject({ kind: 'transient', status: 503 });
    expect(storedPods(h)).toEqual(before);
    expect(await podSamplesBetween(h.db, ACCOUNT, T0 + 3 * HOUR, T0 + 4 * HOUR)).toEqual([]);
  });
});

describe('sampleOf', () => {
  it('reads a GPU figure as unknown when any GPU did not report it, never as a partial list', async () => {
    const h = await harness('small-team.yaml');
    const record = h.sim.world.podView('train-sdxl-lora', T0 + 20 * MINUTE) as V2Pod;
    const runtime = record.runtime as NonNullable<V2Pod['runtime']>;
    const partial = { ...record, runtime: { ...runtime, gpus: [{ util: 95, memoryUtil: 71 }, { memoryUtil: 69 }] } };
    expect(sampleOf(Pod.parse(partial), T0)).toMatchObject({ state: 'known', gpuUtil: null, gpuMemoryUtil: [71, 69] });
  });
});

describe('pods collector with a Pod the schema rejects', () => {
  /** The simulator's own list at `at`, passed through `edit`, served by a scripted server. */
  async function serveEdited(h: Harness, at: number, edit: (pods: Array<Record<string, unknown>>) => unknown[]) {
    await h.clock.advanceTo(T0 + at);
    const pods = h.sim.world.podsView(h.clock.now(), { includeClusterPods: true }) as unknown as Array<
      Record<string, unknown>
    >;
    const server = await startScriptedServer();
    servers.push(server);
    server.enqueue(json(200, { pods: edit(structuredClone(pods)) }));
    const { log, captured } = captureLogger();
    const api = createApiClient({
      restBaseUrl: `${server.url}/v2`,
      graphqlBaseUrl: `${server.url}/graphql`,
      apiKey: 'rpa_test_key_0000',
      graphqlAuth: 'header',
      clock: h.clock,
      log,
      timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
      retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      concurrency: 1,
    });
    const report = await h.drive(runCollector(podsCollector, { ...h.context(), api, log, timeoutMs: 60_000 }));
    await api.close();
    return { report, captured };
  }

  const servers: ScriptedServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('records the rejected Pod, keeps it as unknown (not gone, not idle) and lands the rest', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 30 * MINUTE);
    const bad = 'infer-vllm-1';
    const { report, captured } = await serveEdited(h, HOUR, (pods) =>
      pods.map((pod) => (pod.id === bad ? { ...pod, cost: 'free' } : pod)),
    );
    const index = h.sim.world.podsView(h.clock.now(), { includeClusterPods: true }).findIndex((pod) => pod.id === bad);
    const reason = `response body pods[${index}].cost: expected number, received string`;

    expect(report.outcome).toBe('ok');
    expect(report.detail).toBe(`1 Pod rejected by the schema, treated as unknown: pods[${index}] (${bad}): ${reason}`);
    const [run] = await recentRuns(h.db, { collector: 'pods', limit: 1 });
    expect(run).toMatchObject({ outcome: 'ok', detail: report.detail, error: null });
    const line = captured.lines.map((text) => JSON.parse(text)).find((entry) => entry.podId === bad);
    expect(line).toMatchObject({ level: 40, route: 'GET /pods', index, reason });

    const lastSeen = await podsLastSeenAt(h.db, ACCOUNT);
    expect(lastSeen.get(bad)).toBe(T0 + 30 * MINUTE);
    expect(lastSeen.get('infer-vllm-2')).toBe(T0 + HOUR);
    const samples = await samplesAt(h, HOUR);
    expect(samples.get(bad)).toMatchObject({ state: 'unknown', maxGpuUtil: null });
    expect(samples.get('train-llama-70b')?.state).toBe('known');
  });

  it('marks nothing gone when a rejected item has no readable id: it could be any Pod', async () => {
    const h = await harness('small-team.yaml');
    await pollAt(h, podsCollector, 30 * MINUTE);
    const { report } = await serveEdited(h, HOUR, (pods) => [
      ...pods.filter((pod) => pod.id !== 'infer-vllm-1'),
      { name: 'no id at all' },
    ]);
    expect(report.outcome).toBe('ok');
    expect(report.detail).toContain('missing, expected string');
    expect((await livePods(h.db, ACCOUNT)).find((row) => row.podId === 'infer-vllm-1')?.goneAt).toBeNull();
  });
});
