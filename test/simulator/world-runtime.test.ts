import { describe, expect, it } from 'vitest';
import { H100, HOUR, MINUTE, START_MS, worldOf } from './world-fixtures.js';

function trainingWorld() {
  return worldOf({
    pods: [
      {
        id: 'train',
        name: 'train',
        gpu: { id: H100, count: 2 },
        cost: 5.98,
        startedAt: '-1h',
        utilization: [
          { at: '0s', gpu: 97, memory: 60, cpu: 35, gpuMemory: 88 },
          { at: '1h', gpus: [90, 10], gpuMemory: [80, 20], memory: 55, cpu: 30 },
          { at: '2h', runtime: null },
          { at: '2h10m', gpu: 95, memory: 61 },
        ],
      },
    ],
  });
}

describe('world: runtime from the utilization timeline', () => {
  it('reports every GPU, CPU, memory and ports while RUNNING', () => {
    const pod = trainingWorld().podView('train', START_MS + 30 * MINUTE);
    expect(pod?.runtime).toEqual({
      uptime: 5400,
      gpus: [
        { util: 97, memoryUtil: 88 },
        { util: 97, memoryUtil: 88 },
      ],
      cpu: { util: 35 },
      memory: { util: 60 },
      ports: [
        { private: 8888, public: null, type: 'http', ip: null },
        { private: 22, public: expect.any(Number), type: 'tcp', ip: expect.stringMatching(/^203\.0\.113\.\d+$/) },
      ],
    });
  });

  it('gives each GPU its own value with `gpus`, piecewise constant until the next entry', () => {
    const world = trainingWorld();
    expect(world.podView('train', START_MS + HOUR)?.runtime?.gpus).toEqual([
      { util: 90, memoryUtil: 80 },
      { util: 10, memoryUtil: 20 },
    ]);
    expect(world.podView('train', START_MS + 2 * HOUR - 1)?.runtime?.gpus[1]).toEqual({ util: 10, memoryUtil: 20 });
  });

  it('a telemetry gap is a RUNNING Pod with runtime null, and it ends', () => {
    const world = trainingWorld();
    expect(world.podView('train', START_MS + 2 * HOUR + 5 * MINUTE)).toMatchObject({
      status: 'RUNNING',
      runtime: null,
    });
    expect(world.podView('train', START_MS + 2 * HOUR + 10 * MINUTE)?.runtime).toMatchObject({
      gpus: [
        { util: 95, memoryUtil: 61 },
        { util: 95, memoryUtil: 61 },
      ],
      cpu: { util: 0 },
    });
  });

  it('before its first entry a Pod shows the first entry', () => {
    const world = worldOf({
      pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1, utilization: [{ at: '1h', gpu: 40 }] }],
    });
    expect(world.podView('p', START_MS)?.runtime?.gpus).toEqual([{ util: 40, memoryUtil: 0 }]);
  });

  it('has no runtime when not RUNNING, whatever the timeline says', () => {
    const world = worldOf({
      pods: [
        { id: 'p', name: 'p', gpu: { id: H100 }, cost: 1, status: 'EXITED', utilization: [{ at: '0s', gpu: 99 }] },
      ],
    });
    expect(world.podView('p', START_MS)?.runtime).toBeNull();
  });

  it('a CPU Pod has no GPUs and no gpu field', () => {
    const world = worldOf({
      pods: [
        { id: 'c', name: 'c', cpu: { id: 'cpu3c', vcpuCount: 8, memory: 16 }, utilization: [{ at: '0s', cpu: 70 }] },
      ],
    });
    const pod = world.podView('c', START_MS);
    expect(pod).toMatchObject({ cpu: { id: 'cpu3c', vcpuCount: 8, memory: 16 }, cost: 0.24, cudaVersion: null });
    expect(pod?.gpu).toBeUndefined();
    expect(pod?.runtime).toMatchObject({ gpus: [], cpu: { util: 70 } });
  });

  it('checkpoint dips repeat every hour', () => {
    const world = worldOf({
      pods: [
        {
          id: 't',
          name: 't',
          gpu: { id: H100 },
          cost: 2.99,
          utilization: [
            { at: '0s', gpu: 97, every: '1h', until: '24h' },
            { at: '55m', gpu: 0, every: '1h', until: '24h' },
          ],
        },
      ],
    });
    const utilAt = (offset: number) => world.podView('t', START_MS + offset)?.runtime?.gpus[0]?.util;
    expect([utilAt(54 * MINUTE), utilAt(55 * MINUTE), utilAt(59 * MINUTE), utilAt(HOUR)]).toEqual([97, 0, 0, 97]);
    expect([utilAt(20 * HOUR + 54 * MINUTE), utilAt(20 * HOUR + 56 * MINUTE)]).toEqual([97, 0]);
  });
});

describe('world: catalog availability timelines', () => {
  it('follows the GPU type timeline (NONE → HIGH after 3 minutes)', () => {
    const world = worldOf({});
    const rtx = world.scenario.catalog.gpus.find((gpu) => gpu.id === 'NVIDIA GeForce RTX 4090');
    const level = (offset: number) => rtx && world.availabilityOf(rtx, START_MS + offset);
    expect(level(0)).toBe('NONE');
    expect(level(3 * MINUTE - 1)).toBe('NONE');
    expect(level(3 * MINUTE)).toBe('HIGH');
  });

  it('gives GraphQL the fields it needs', () => {
    const world = worldOf({});
    const h100 = world.scenario.catalog.gpus[0];
    expect(h100).toMatchObject({
      id: H100,
      name: 'H100 SXM',
      memory: 80,
      manufacturer: 'NVIDIA',
      price: { secure: 2.99, community: 2.39 },
      maxCount: { secure: 8, community: 8 },
    });
    expect(h100 && world.availabilityOf(h100, START_MS)).toBe('HIGH');
  });
});

describe('world: serverless workers', () => {
  const world = () =>
    worldOf({
      endpoints: [
        {
          id: 'ep',
          name: 'sdxl',
          gpu: { pools: ['ADA_24'], count: 1 },
          workers: { min: 1, max: 4 },
          dataCenterIds: ['US-KS-2'],
          load: [
            { at: '0s', running: 0, idle: 1 },
            { at: '1h', running: 2, idle: 1, throttled: 1 },
          ],
        },
      ],
    });

  it('lists one worker per slot with a summary that adds up', () => {
    const view = world().workersView('ep', START_MS + HOUR + MINUTE);
    expect(view?.summary).toEqual({ running: 2, idle: 1, initializing: 0, throttled: 1, unhealthy: 0, total: 4 });
    expect(view?.workers.map((worker) => worker.status)).toEqual(['RUNNING', 'RUNNING', 'IDLE', 'THROTTLED']);
    expect(view?.workers[0]).toMatchObject({
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      dataCenterId: 'US-KS-2',
      uptimeSeconds: 3660,
    });
    expect(view?.workers[1]).toMatchObject({ uptimeSeconds: 60, startedAt: '2026-11-02T01:00:00Z' });
    expect(view?.workers[3]).toMatchObject({ gpuTypeId: null, uptimeSeconds: null, startedAt: null });
    expect(view?.endpointVersion).toBe(1);
  });

  it('prices workers from the pool when the scenario does not', () => {
    expect(world().scenario.endpoints[0]?.pricePerWorkerHour).toBe(1.1);
  });
});
