import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { DaemonEvents } from '../../src/daemon-events.js';
import { writeLadderStep } from '../../src/db/ladder-step.js';
import { type PodInput, syncPods } from '../../src/db/pods.js';
import type { ReceiptInput } from '../../src/db/receipts.js';
import { EventBus } from '../../src/events.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { HOUR, T0, useTempDatabases } from '../db/support.js';
import { parseExposition, sampleValue } from './support.js';

const temp = useTempDatabases();
let metrics: Metrics | undefined;
afterEach(() => metrics?.close());

const pod = (status: string, startedAt: number): PodInput => ({
  podId: 'nb',
  name: 'notebook',
  status,
  costPerHr: status === 'RUNNING' ? 0.86 : 0,
  gpuTypeId: 'NVIDIA L40S',
  gpuCount: 1,
  cpuTypeId: null,
  cloud: 'SECURE',
  dataCenterId: null,
  clusterId: null,
  clusterRole: null,
  volumeGb: 50,
  networkVolumeId: null,
  env: {},
  actions: ['stop'],
  locked: 0,
  createdAt: T0 - HOUR,
  startedAt,
});

function stop(key: string, at: number, dryRun: boolean): ReceiptInput {
  return {
    idempotencyKey: key,
    kind: 'idle',
    account: 'main',
    podId: 'nb',
    podName: 'notebook',
    rule: 'default',
    episodeStartedAt: at - HOUR,
    decidedAt: at,
    decision: dryRun ? 'dry_run' : 'stopped',
    reason: null,
    dryRun,
    plannedStopAt: null,
    costPerHr: 0.86,
    savingPerHr: 0.85,
    evidence: {
      windowFrom: 0,
      windowTo: 0,
      thresholds: { utilThreshold: 5, coverage: 0.9, minSamples: 3, windowMs: 0, graceMs: 0, memoryThreshold: 10 },
      coverage: 1,
      idleSamples: 3,
      held: false,
      samples: [],
    },
    guards: [],
  };
}

describe('podwarden_savings_dollars_total', () => {
  it('counts what the ledger saved: 0 from the start, growing while stopped, fixed once started again', async () => {
    const database = temp.open();
    const clock = new VirtualClock(T0);
    const config = parseConfig({ accounts: [{ name: 'main', apiKey: 'k' }] }, { env: {}, baseDir: '/' });
    const events = new EventBus<DaemonEvents>();
    metrics = createMetrics({
      source: {
        db: database,
        events,
        enabledCollectors: () => [],
        rateLimits: () => [],
        databaseWriteProblem: () => undefined,
      },
      config,
      clock,
    });
    const saved = async () =>
      sampleValue(parseExposition(await metrics!.registry.metrics()), 'podwarden_savings_dollars_total', {
        account: 'main',
      });
    const tick = async (at: number) => {
      await clock.advanceTo(at);
      events.emit('evaluation:finished', { at, unjudged: [] });
      await events.settled();
    };
    expect(await saved()).toBe(0);

    await syncPods(database, 'main', [pod('RUNNING', T0 - HOUR)], T0);
    await writeLadderStep(database, { kind: 'none' }, [stop('dry', T0, true), stop('sent', T0 + HOUR, false)]);
    await tick(T0 + 3 * HOUR);
    expect(await saved()).toBeCloseTo(2 * 0.85, 10);
    await syncPods(database, 'main', [pod('RUNNING', T0 + 4 * HOUR)], T0 + 4 * HOUR);
    await tick(T0 + 6 * HOUR);
    expect(await saved()).toBeCloseTo(3 * 0.85, 10);
  });
});
