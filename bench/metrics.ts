/**
 * `/metrics` of the `large` scenario on the last day of its month, without budgets and with the
 * five budgets of issue 12: podwarden's registry as the scrape renders it, against bare
 * prom-client serving the same series (the same names, labels and values, set once) in the
 * same run. The scrape must not compute: the target is at most 1.3× bare prom-client.
 *
 *   node --import tsx bench/metrics.ts [runs]
 *   PODWARDEN_BENCH_DB=month-end.db node --import tsx bench/metrics.ts   # reuse a collected month
 */
import { performance } from 'node:perf_hooks';
import { Gauge, Registry } from 'prom-client';
import { budgetsSection } from '../src/config/sections/budgets.js';
import { EventBus } from '../src/events.js';
import { createMetrics } from '../src/metrics/registry.js';
import { FIVE_BUDGETS, monthEndSetup } from './month-end.js';
import { fmt } from './support.js';

const RUNS = Number(process.argv[2] ?? 10);
const setup = await monthEndSetup({ budgets: false });
const { db, config, clock } = setup;
const source = {
  db,
  events: new EventBus(),
  enabledCollectors: () => [],
  rateLimits: () => [],
  databaseWriteProblem: () => undefined,
} as unknown as Parameters<typeof createMetrics>[0]['source'];

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)] as number;
}

/** A bare prom-client registry holding exactly the samples `registry` exposes now. */
async function bareCopy(registry: Registry): Promise<Registry> {
  const bare = new Registry();
  const families = new Map<
    string,
    { help: string; labels: Set<string>; samples: Array<[Record<string, string | number>, number]> }
  >();
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const value of metric.values as Array<{
      metricName?: string;
      labels: Record<string, string | number>;
      value: number;
    }>) {
      const name = value.metricName ?? metric.name;
      let family = families.get(name);
      if (!family) {
        family = { help: metric.help, labels: new Set(), samples: [] };
        families.set(name, family);
      }
      for (const label of Object.keys(value.labels)) family.labels.add(label);
      family.samples.push([value.labels, value.value]);
    }
  }
  for (const [name, family] of families) {
    const gauge = new Gauge({ name, help: family.help, labelNames: [...family.labels], registers: [bare] });
    for (const [labels, value] of family.samples) gauge.set(labels, value);
  }
  return bare;
}

async function measure(label: string) {
  const metrics = createMetrics({ source, config, clock });
  const text = await metrics.registry.metrics();
  const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length;
  const bare = await bareCopy(metrics.registry);
  const ours = await median(() => metrics.registry.metrics());
  const theirs = await median(() => bare.metrics());
  console.log(
    `${label.padEnd(16)} ${fmt(series)} series, ${fmt(text.length / 1e6, 2)} MB: podwarden ${fmt(ours / 1000, 3)} s, ` +
      `bare prom-client ${fmt(theirs / 1000, 3)} s, ratio ${fmt(ours / theirs, 2)}×`,
  );
  metrics.close();
}

console.log(`large scenario, ${new Date(clock.now()).toISOString()}, median of ${RUNS}:`);
await measure('no budgets');
config.budgets = budgetsSection.parse(FIVE_BUDGETS);
await measure('five budgets');
await setup.close();
