import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { type DaemonHarness, find, parseExposition, sampleValue, startDaemonHarness } from './support.js';

const MINUTE = 60_000;

/** One idle notebook; `faults` make the API fail as the fault suite's day did. */
function scenario(faults: Array<Record<string, unknown>>) {
  return {
    name: 'blind',
    start: '2026-11-02T00:00:00Z',
    apiKey: 'sim-key',
    catalog: {
      gpus: [
        { id: 'NVIDIA L40S', name: 'L40S', memory: 48, price: { secure: 0.86, community: 0.79 }, availability: 'HIGH' },
      ],
    },
    pods: [
      {
        id: 'nb',
        name: 'notebook',
        gpu: { id: 'NVIDIA L40S', count: 1 },
        cost: 0.86,
        status: 'RUNNING',
        startedAt: '-3h',
        utilization: [{ at: '-3h', gpu: 0, gpuMemory: 0, memory: 30 }],
      },
    ],
    faults,
  };
}

function tune(config: Config): void {
  config.idle = parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused' }],
      idle: { rules: [{ name: 'notebooks', window: '30m', dryRun: true, stopWithoutDeliveredWarning: true }] },
    },
    { env: {}, baseDir: process.cwd() },
  ).idle;
}

let h: DaemonHarness | undefined;
let metrics: Metrics | undefined;
afterEach(async () => {
  metrics?.close();
  await h?.close();
});

/**
 * The gauge after each evaluation of `minutes` virtual minutes, the Pod poll on the minute and
 * the evaluation at :30, as the schedule runs them.
 */
async function unjudgedByMinute(
  faults: Array<Record<string, unknown>>,
  minutes: number,
): Promise<{ values: number[]; idleMinutes: number }> {
  const harness = await startDaemonHarness(scenario(faults), tune);
  h = harness;
  const registry = createMetrics({ source: harness.daemon, config: harness.config, clock: harness.clock });
  metrics = registry;
  const values: number[] = [];
  let idleMinutes = 0;
  for (let i = 0; i < minutes; i++) {
    await harness.clock.advanceTo(Math.floor(harness.clock.now() / MINUTE) * MINUTE + MINUTE);
    await harness.drive(harness.daemon.collect('pods', 'sim'));
    await harness.clock.advanceBy(30_000);
    await harness.drive(harness.daemon.evaluate());
    const samples = parseExposition(await registry.registry.metrics());
    values.push(sampleValue(samples, 'podwarden_idle_unjudged', { account: 'sim' }));
    if (find(samples, 'podwarden_pod_idle', { pod_id: 'nb' }).length > 0) idleMinutes++;
  }
  return { values, idleMinutes };
}

const share = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

describe('podwarden_idle_unjudged', () => {
  it('stays up most of the time while the Pod poll fails a few minutes in every quarter hour', async () => {
    // 4 minutes of 503 from /v2/pods every 15 minutes: each gap restarts the idle evidence, which
    // never again covers 90% of the 30-minute window, so the idle notebook is never judged.
    const faults = Array.from({ length: 6 }, (_, k) => ({
      from: `${10 + 15 * k}m`,
      to: `${14 + 15 * k}m`,
      match: '/v2/pods',
      kind: 'status',
      status: 503,
    }));
    const { values, idleMinutes } = await unjudgedByMinute(faults, 90);
    expect(idleMinutes).toBe(0);
    // The last hour, as avg_over_time(podwarden_idle_unjudged[1h]) reads it.
    expect(share(values.slice(-60))).toBeGreaterThan(0.9);
  }, 180_000);

  it('is 0 once the Pod is judged, with no faults', async () => {
    const { values, idleMinutes } = await unjudgedByMinute([], 40);
    expect(idleMinutes).toBeGreaterThan(0);
    expect(values.at(-1)).toBe(0);
    expect(share(values.slice(-10))).toBe(0);
  }, 180_000);
});
