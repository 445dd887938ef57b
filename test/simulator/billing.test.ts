import { describe, expect, it } from 'vitest';
import { H100, HOUR, MINUTE, SECOND, START_MS, worldOf } from './world-fixtures.js';

/** What `hours` whole hours at `perHour` USD come to: rounded to micro-dollars per hour. */
function hours(perHour: number, count: number): number {
  return (Math.round(perHour * 1e6) * count) / 1e6;
}

const MONTH_HOURS = 730;
const containerDisk = (gb: number) => (gb * 0.1) / MONTH_HOURS;

describe('billing: what the world accrues', () => {
  it('a RUNNING Pod accrues its cost per hour (gpuAmount) and its container disk', () => {
    const world = worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 3.6, startedAt: '-2h' }] });
    const spend = world.accrued(START_MS + HOUR, {
      kind: 'pods',
      fromMs: START_MS - 5 * HOUR,
      toMs: START_MS + 5 * HOUR,
    });
    expect(spend).toEqual({
      totalAmount: hours(3.6, 3) + hours(containerDisk(20), 3),
      gpuAmount: hours(3.6, 3),
      cpuAmount: 0,
      diskAmount: hours(containerDisk(20), 3),
    });
  });

  it('accrues by the second: 90 seconds of a $3.60/h Pod is 9 cents', () => {
    const world = worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 3.6, containerDiskGb: 1 }] });
    const spend = world.accrued(START_MS + 90 * SECOND, { kind: 'pods', fromMs: START_MS, toMs: START_MS + HOUR });
    expect(spend.gpuAmount).toBe(0.09);
  });

  it('a CPU Pod bills cpuAmount instead', () => {
    const world = worldOf({
      pods: [{ id: 'c', name: 'c', cpu: { id: 'cpu3c', vcpuCount: 4, memory: 8 }, cost: 0.12 }],
    });
    const spend = world.accrued(START_MS + HOUR, { kind: 'pods', fromMs: START_MS, toMs: START_MS + HOUR });
    expect(spend).toMatchObject({ gpuAmount: 0, cpuAmount: 0.12 });
  });

  it('a persistent volume bills while running ($0.10/GB-month) and stopped ($0.20/GB-month)', () => {
    const world = worldOf({
      pods: [
        {
          id: 'p',
          name: 'p',
          gpu: { id: H100 },
          cost: 1,
          volumeGb: 100,
          containerDiskGb: 10,
          events: [{ at: '1h', action: 'stop' }],
        },
      ],
    });
    const disk = (from: number, to: number) =>
      world.accrued(START_MS + 3 * HOUR, { kind: 'pods', fromMs: START_MS + from, toMs: START_MS + to }).diskAmount;
    expect(disk(0, HOUR)).toBe(hours((100 * 0.1 + 10 * 0.1) / MONTH_HOURS, 1));
    expect(disk(HOUR, 3 * HOUR)).toBe(hours((100 * 0.2) / MONTH_HOURS, 2));
  });

  it('bills compute from the start action: PROVISIONING and STARTING hold the machine', () => {
    const world = worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 3.6, status: 'EXITED' }] });
    world.podAction('p', 'start', START_MS);
    const spend = world.accrued(START_MS + 50 * SECOND, { kind: 'pods', fromMs: START_MS, toMs: START_MS + HOUR });
    expect(world.podStatuses(START_MS + 50 * SECOND).p).toBe('RUNNING');
    expect(spend.gpuAmount).toBe(0.05);
  });

  it('a terminated Pod keeps what it spent and spends nothing more', () => {
    const world = worldOf({
      pods: [
        { id: 'p', name: 'p', gpu: { id: H100 }, cost: 2, volumeGb: 50, events: [{ at: '1h', action: 'terminate' }] },
      ],
    });
    const before = world.accrued(START_MS + 10 * HOUR, { kind: 'pods', fromMs: START_MS, toMs: START_MS + HOUR });
    const after = world.accrued(START_MS + 10 * HOUR, {
      kind: 'pods',
      fromMs: START_MS + HOUR,
      toMs: START_MS + 10 * HOUR,
    });
    expect(before.gpuAmount).toBe(2);
    expect(after.totalAmount).toBe(0);
  });

  it('network volumes bill by size and tier: $0.07/GB-month up to 1 TB, $0.05 beyond', () => {
    const world = worldOf({
      volumes: [
        { id: 'big', name: 'big', size: 2000, dataCenter: 'US-KS-2', type: 'STANDARD' },
        { id: 'fast', name: 'fast', size: 500, dataCenter: 'US-KS-2', type: 'HIGH_PERFORMANCE' },
      ],
    });
    const window = { fromMs: START_MS, toMs: START_MS + 2 * HOUR };
    expect(world.accrued(START_MS + 2 * HOUR, { kind: 'network_volumes', id: 'big', ...window })).toEqual({
      totalAmount: hours((1000 * 0.07 + 1000 * 0.05) / MONTH_HOURS, 2),
      standardAmount: hours((1000 * 0.07 + 1000 * 0.05) / MONTH_HOURS, 2),
      highPerformanceAmount: 0,
    });
    expect(world.accrued(START_MS + 2 * HOUR, { kind: 'network_volumes', id: 'fast', ...window })).toMatchObject({
      highPerformanceAmount: hours((500 * 0.14) / MONTH_HOURS, 2),
    });
  });

  it('endpoints bill their running and idle workers (serverless gpuAmount); throttled ones wait for free', () => {
    const world = worldOf({
      endpoints: [
        {
          id: 'ep',
          name: 'ep',
          gpu: { pools: ['ADA_24'], count: 1 },
          workers: { min: 0, max: 4 },
          pricePerWorkerHour: 0.5,
          load: [
            { at: '0s', running: 1, idle: 1 },
            { at: '1h', running: 0, idle: 0, throttled: 2 },
          ],
        },
      ],
    });
    expect(
      world.accrued(START_MS + 3 * HOUR, { kind: 'serverless', fromMs: START_MS - HOUR, toMs: START_MS + 3 * HOUR }),
    ).toEqual({ totalAmount: 1, gpuAmount: 1, cpuAmount: 0, diskAmount: 0, feeAmount: 0 });
  });

  it('cluster members bill to their cluster, not to pods', () => {
    const member = (id: string) => ({ id, name: id, gpu: { id: H100, count: 8 }, cost: 20, containerDiskGb: 10 });
    const world = worldOf({ clusters: [{ id: 'cl', name: 'cl', pods: [member('n0'), member('n1')] }] });
    const window = { fromMs: START_MS, toMs: START_MS + HOUR };
    expect(world.accrued(START_MS + HOUR, { kind: 'pods', ...window }).totalAmount).toBe(0);
    expect(world.accrued(START_MS + HOUR, { kind: 'clusters', id: 'cl', ...window })).toEqual({
      totalAmount: 40 + 2 * hours(containerDisk(10), 1),
      gpuAmount: 40,
      diskAmount: 2 * hours(containerDisk(10), 1),
      networkingAmount: 0,
    });
  });

  it('never accrues the future', () => {
    const world = worldOf({ pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1, containerDiskGb: 1 }] });
    const spend = world.accrued(START_MS + 30 * MINUTE, { kind: 'pods', fromMs: START_MS, toMs: START_MS + 24 * HOUR });
    expect(spend.gpuAmount).toBe(0.5);
  });

  it('the account total is the sum of its components, and of every kind', () => {
    const world = worldOf({
      pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1.23, volumeGb: 40 }],
      volumes: [{ id: 'v', name: 'v', size: 100, dataCenter: 'US-KS-2' }],
      endpoints: [{ id: 'ep', name: 'ep', gpu: { pools: ['ADA_24'] }, workers: { min: 1, max: 1 } }],
    });
    const window = { fromMs: START_MS, toMs: START_MS + 5 * HOUR };
    const now = START_MS + 5 * HOUR;
    const all = world.accrued(now, { kind: 'all', ...window });
    const pods = world.accrued(now, { kind: 'pods', ...window });
    const serverless = world.accrued(now, { kind: 'serverless', ...window });
    const volumes = world.accrued(now, { kind: 'network_volumes', ...window });
    expect(all).toMatchObject({
      podGpuAmount: pods.gpuAmount,
      podDiskAmount: pods.diskAmount,
      serverlessGpuAmount: serverless.gpuAmount,
      storageStandardAmount: volumes.standardAmount,
    });
    const micros = (value: number | undefined) => Math.round((value ?? 0) * 1e6);
    const components = Object.entries(all).filter(([field]) => field !== 'totalAmount');
    expect(micros(all.totalAmount)).toBe(components.reduce((sum, [, value]) => sum + micros(value), 0));
    expect(micros(all.totalAmount)).toBe(
      micros(pods.totalAmount) + micros(serverless.totalAmount) + micros(volumes.totalAmount),
    );
  });
});
