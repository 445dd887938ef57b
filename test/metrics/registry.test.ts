import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import {
  type DaemonHarness,
  find,
  hasBinary,
  parseExposition,
  promtoolProblems,
  sampleValue,
  startDaemonHarness,
} from './support.js';

const MINUTE = 60_000;
const H100 = 'NVIDIA H100 80GB HBM3';

/** Three Pods; `doomed` is terminated two minutes in and vanishes from the API's list. */
const threePods = {
  name: 'metrics-three-pods',
  start: '2026-11-02T09:00:00Z',
  apiKey: 'sim-key',
  rateLimit: { minute: 600, hour: 20000 },
  catalog: {
    gpus: [
      { id: H100, name: 'H100 SXM', memory: 80, price: { secure: 2.99, community: 2.39 }, availability: 'MEDIUM' },
    ],
  },
  pods: [
    {
      id: 'busy',
      name: 'trainer',
      gpu: { id: H100, count: 2 },
      cost: 5.98,
      status: 'RUNNING',
      startedAt: '-1h',
      utilization: [{ at: '-1h', gpus: [90, 10], gpuMemory: [80, 20], memory: 50, cpu: 40 }],
    },
    {
      id: 'doomed',
      name: 'scratch',
      gpu: { id: H100, count: 1 },
      cost: 2.99,
      status: 'RUNNING',
      startedAt: '-1h',
      utilization: [{ at: '-1h', gpu: 50, memory: 30 }],
      events: [{ at: '2m', action: 'terminate' }],
    },
    {
      id: 'blind',
      name: 'no-telemetry',
      gpu: { id: H100, count: 1 },
      cost: 2.99,
      status: 'RUNNING',
      startedAt: '-1h',
      utilization: [{ at: '-1h', runtime: null }],
    },
  ],
};

let h: DaemonHarness | undefined;
let metrics: Metrics | undefined;
afterEach(async () => {
  metrics?.close();
  metrics = undefined;
  await h?.close();
  h = undefined;
});

async function start(scenario: string | Record<string, unknown>, tune?: Parameters<typeof startDaemonHarness>[1]) {
  h = await startDaemonHarness(scenario, tune);
  metrics = createMetrics({ source: h.daemon, config: h.config, clock: h.clock });
  return { h, registry: metrics.registry };
}

async function scrape(): Promise<string> {
  if (!metrics) throw new Error('no metrics');
  return metrics.registry.metrics();
}

describe('metrics read from the database and the daemon', () => {
  it("reports each Pod's cost, utilization per GPU, spend, and the catalog as the demo scenario implies", async () => {
    const { h } = await start('demo.yaml', (config) => {
      config.collectors.billing.backfillMs = 2 * 24 * 3_600_000;
    });
    await h.drive(h.daemon.collectOnce());
    const samples = parseExposition(await scrape());

    for (const pod of h.scenario.pods.filter((p) => p.status === 'RUNNING')) {
      expect(sampleValue(samples, 'podwarden_pod_cost_dollars_per_hour', { pod_id: pod.id, name: pod.name })).toBe(
        pod.cost,
      );
    }
    expect(sampleValue(samples, 'podwarden_pod_cost_dollars_per_hour', { pod_id: 'nb-stopped' })).toBe(0);
    expect(sampleValue(samples, 'podwarden_pod_info', { pod_id: 'nb-stopped', status: 'EXITED' })).toBe(1);
    const trainer = find(samples, 'podwarden_pod_gpu_utilization_ratio', { pod_id: 'train-8xh100' });
    expect(trainer.map((s) => s.labels.gpu_index).sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(new Set(trainer.map((s) => s.value))).toEqual(new Set([0.97]));
    expect(
      sampleValue(samples, 'podwarden_pod_gpu_memory_utilization_ratio', { pod_id: 'nb-demo', gpu_index: '0' }),
    ).toBe(0.55);
    // A stopped Pod is not sampled: no stale figures from when it last ran.
    expect(find(samples, 'podwarden_pod_gpu_utilization_ratio', { pod_id: 'nb-stopped' })).toEqual([]);
    expect(find(samples, 'podwarden_pod_utilization_known', { pod_id: 'nb-stopped' })).toEqual([]);

    const availability = (gpu: string) =>
      sampleValue(samples, 'podwarden_gpu_availability', { gpu_type_id: gpu, product: 'POD', data_center_id: '' });
    expect(availability('NVIDIA H200')).toBe(0);
    expect(availability(H100)).toBe(1);
    expect(availability('NVIDIA A100 80GB PCIe')).toBe(3);
    expect(sampleValue(samples, 'podwarden_gpu_price_dollars_per_hour', { gpu_type_id: H100, rate: 'secure' })).toBe(
      2.99,
    );
    expect(sampleValue(samples, 'podwarden_gpu_stock', { gpu_type_id: 'NVIDIA H200', cloud: 'SECURE' })).toBe(0);

    // Every billing kind for both periods; the account total covers the per-kind figures.
    expect(find(samples, 'podwarden_spend_dollars')).toHaveLength(12);
    const day = (kind: string) => sampleValue(samples, 'podwarden_spend_dollars', { kind, period: 'day' });
    const month = (kind: string) => sampleValue(samples, 'podwarden_spend_dollars', { kind, period: 'month' });
    expect(day('pods')).toBeGreaterThan(50);
    expect(month('pods')).toBeGreaterThanOrEqual(day('pods'));
    expect(day('account')).toBeCloseTo(day('pods') + day('serverless') + day('network_volumes'), 5);
  });

  it('has every collector and error kind series at 0 before the first run, and counts runs by outcome', async () => {
    const { h } = await start(threePods, (config) => {
      config.api.graphql.enabled = false;
    });
    const before = parseExposition(await scrape());
    const collectors = h.daemon.enabledCollectors();
    expect(find(before, 'podwarden_collector_runs_total')).toHaveLength(collectors.length);
    expect(find(before, 'podwarden_collector_errors_total')).toHaveLength(collectors.length * 3);
    for (const sample of find(before, 'podwarden_collector_errors_total')) expect(sample.value).toBe(0);
    for (const sample of find(before, 'podwarden_collector_last_success_timestamp_seconds'))
      expect(sample.value).toBe(0);
    expect(sampleValue(before, 'podwarden_collector_interval_seconds', { collector: 'pods' })).toBe(60);
    expect(find(before, 'podwarden_spend_dollars')).toEqual([]);

    await h.drive(h.daemon.collect('pods', 'sim'));
    await h.drive(h.daemon.collect('stock', 'sim'));
    const after = parseExposition(await scrape());
    expect(sampleValue(after, 'podwarden_collector_last_success_timestamp_seconds', { collector: 'pods' })).toBe(
      h.clock.now() / 1000,
    );
    expect(sampleValue(after, 'podwarden_collector_runs_total', { collector: 'pods' })).toBe(1);
    // GraphQL turned off: the stock collector has nothing to read, which is recorded, not a failure.
    expect(sampleValue(after, 'podwarden_collector_errors_total', { collector: 'stock', kind: 'no_data' })).toBe(1);
    expect(sampleValue(after, 'podwarden_collector_errors_total', { collector: 'stock', kind: 'error' })).toBe(0);
    expect(sampleValue(after, 'podwarden_api_requests_total', { route: '/pods', method: 'GET', status: '200' })).toBe(
      1,
    );
    expect(sampleValue(after, 'podwarden_api_rate_limit_quota', { window: 'minute' })).toBe(600);
    expect(sampleValue(after, 'podwarden_api_rate_limit_remaining', { window: 'minute' })).toBe(599);
  });

  it("takes a collector's last success from the database, so a restart does not reset it", async () => {
    const { h } = await start(threePods);
    await h.drive(h.daemon.collect('pods', 'sim'));
    const collectedAt = h.clock.now();
    const restarted = createMetrics({ source: h.daemon, config: h.config, clock: h.clock });
    try {
      const samples = parseExposition(await restarted.registry.metrics());
      expect(sampleValue(samples, 'podwarden_collector_last_success_timestamp_seconds', { collector: 'pods' })).toBe(
        collectedAt / 1000,
      );
      expect(sampleValue(samples, 'podwarden_collector_runs_total', { collector: 'pods' })).toBe(0);
    } finally {
      restarted.close();
    }
  });

  it("drops a vanished Pod's series and never shows unknown utilization as a number", async () => {
    const { h } = await start(threePods);
    await h.drive(h.daemon.collect('pods', 'sim'));
    const first = parseExposition(await scrape());
    expect(sampleValue(first, 'podwarden_pod_cost_dollars_per_hour', { pod_id: 'doomed' })).toBe(2.99);
    expect(sampleValue(first, 'podwarden_pod_gpu_utilization_ratio', { pod_id: 'doomed', gpu_index: '0' })).toBe(0.5);
    expect(sampleValue(first, 'podwarden_pod_gpu_utilization_ratio', { pod_id: 'busy', gpu_index: '1' })).toBe(0.1);
    expect(sampleValue(first, 'podwarden_pod_utilization_known', { pod_id: 'blind' })).toBe(0);
    expect(find(first, 'podwarden_pod_gpu_utilization_ratio', { pod_id: 'blind' })).toEqual([]);
    expect(sampleValue(first, 'podwarden_pod_cost_dollars_per_hour', { pod_id: 'blind' })).toBe(2.99);

    await h.clock.advanceTo(h.scenario.startMs + 3 * MINUTE);
    await h.drive(h.daemon.collect('pods', 'sim'));
    const second = parseExposition(await scrape());
    for (const name of [
      'podwarden_pod_cost_dollars_per_hour',
      'podwarden_pod_info',
      'podwarden_pod_gpus',
      'podwarden_pod_gpu_utilization_ratio',
      'podwarden_pod_gpu_memory_utilization_ratio',
      'podwarden_pod_memory_utilization_ratio',
      'podwarden_pod_utilization_known',
    ]) {
      expect(find(second, name, { pod_id: 'doomed' }), name).toEqual([]);
      expect(find(second, name, { pod_id: 'busy' }).length, name).toBeGreaterThan(0);
    }
  });
  it('gives each owned Pod one owner info series, labels ownership does not name absent, none for an unowned Pod', async () => {
    const { h } = await start(threePods, (config) => {
      config.owners.fromName = ['^(?<owner>trainer)$'];
      config.owners.default = { team: 'ml' };
    });
    await h.drive(h.daemon.collect('pods', 'sim'));
    const samples = parseExposition(await scrape());
    const owned = find(samples, 'podwarden_pod_owner_info', {}).map((sample) => [sample.labels, sample.value]);
    expect(owned).toEqual([
      [{ account: 'sim', pod_id: 'blind', team: 'ml' }, 1],
      [{ account: 'sim', pod_id: 'busy', owner: 'trainer', team: 'ml' }, 1],
      [{ account: 'sim', pod_id: 'doomed', team: 'ml' }, 1],
    ]);
    expect(promtoolProblems(await scrape())).toEqual([]);
  });

  it('has no owner info series without owners configured', async () => {
    const { h } = await start(threePods);
    await h.drive(h.daemon.collect('pods', 'sim'));
    expect(find(parseExposition(await scrape()), 'podwarden_pod_owner_info', {})).toEqual([]);
  });

  it("replaces only the polled account's series: another account's Pods stay as its own last poll saw them", async () => {
    const { h } = await start(threePods, (config) => {
      const [sim] = config.accounts;
      if (!sim) throw new Error('no account');
      config.accounts.push({ ...sim, name: 'twin' });
    });
    await h.drive(h.daemon.collect('pods', 'sim'));
    await h.drive(h.daemon.collect('pods', 'twin'));
    const both = parseExposition(await scrape());
    for (const account of ['sim', 'twin']) {
      expect(sampleValue(both, 'podwarden_pod_cost_dollars_per_hour', { account, pod_id: 'doomed' })).toBe(2.99);
    }

    await h.clock.advanceTo(h.scenario.startMs + 3 * MINUTE);
    await h.drive(h.daemon.collect('pods', 'sim'));
    const after = parseExposition(await scrape());
    for (const name of ['podwarden_pod_cost_dollars_per_hour', 'podwarden_pod_gpu_utilization_ratio']) {
      expect(find(after, name, { account: 'sim', pod_id: 'doomed' }), name).toEqual([]);
      expect(find(after, name, { account: 'sim', pod_id: 'busy' }).length, name).toBeGreaterThan(0);
      expect(find(after, name, { account: 'twin' }), name).toEqual(find(both, name, { account: 'twin' }));
    }
  });
});

describe('the exposition', () => {
  it.skipIf(!hasBinary('promtool'))('passes promtool check metrics', async () => {
    const { h } = await start('demo.yaml', (config) => {
      config.collectors.billing.backfillMs = 24 * 3_600_000;
    });
    await h.drive(h.daemon.collectOnce());
    const text = await scrape();
    expect(promtoolProblems(text)).toEqual([]);
    expect(text).toContain('podwarden_pod_cost_dollars_per_hour{');
  });

  it('names every metric podwarden_<area>_<thing>_<unit> with a one-sentence help', async () => {
    const { registry } = await start(threePods);
    const ours = registry.getMetricsAsArray().filter((metric) => !/^(process|nodejs)_/.test(metric.name));
    expect(ours.length).toBeGreaterThan(20);
    for (const metric of ours) {
      expect(metric.name).toMatch(/^podwarden_[a-z0-9_]+$/);
      expect(metric.help, metric.name).toMatch(/^[A-Z0-9'"].*\.$/);
      expect(metric.help.slice(0, -1), metric.name).not.toMatch(/\.\s/);
      expect(metric.name.endsWith('_total'), metric.name).toBe(String(metric.type) === 'counter');
    }
    const info = parseExposition(await registry.metrics()).filter((sample) => sample.name.endsWith('_info'));
    expect(info.length).toBeGreaterThan(0);
    for (const sample of info) expect(sample.value, sample.name).toBe(1);
  });
});
