import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { RealClock, toIso } from '../../src/clock.js';
import { packagePath } from '../../src/package-root.js';
import { ScaledClock } from '../../src/simulator/scaled-clock.js';
import { parseScenario, type Scenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { spawnCli } from '../helpers/cli.js';
import { hasBinary } from '../metrics/support.js';
import { type PrometheusServer, poll, startPrometheus, type VectorSample } from './support/prometheus.js';

const ACCOUNT = 'demo';
const FAST = '*/5 * * * * *';
/** Real time the daemon runs before the checks: a few polls of every collector and several scrapes. */
const RUN_FOR_MS = 20_000;
const DAY_MS = 86_400_000;
/**
 * Panels whose queries only have to parse here: the demo's notebook goes idle two minutes in,
 * so in this half minute the idle ladder holds no Pod (test/metrics covers those series).
 */
const MAY_BE_EMPTY = new Set(['Idle candidates and countdowns']);

let dir: string;
let scenario: Scenario;
let sim: Simulator;
let daemon: ReturnType<typeof spawnCli> | undefined;
let daemonLog = '';
let prometheus: PrometheusServer | undefined;
let startedAt: number;
const clock = new RealClock();

/** The demo scenario starting now, so the daemon's real clock and the simulator's agree. */
function demoStartingNow(): Scenario {
  const raw = parseYaml(readFileSync(packagePath('config/scenarios/demo.yaml'), 'utf8'));
  const start = Math.floor(clock.now() / 1000) * 1000;
  return parseScenario(
    { ...raw, start: toIso(start), rateLimit: { minute: 600, hour: 20_000 } },
    'demo.yaml starting now',
  );
}

function writeDaemonConfig(): string {
  const path = join(dir, 'podwarden.yaml');
  const schedule = (extra: Record<string, unknown> = {}) => ({ schedule: FAST, ...extra });
  writeFileSync(
    path,
    toYaml({
      accounts: [
        { name: ACCOUNT, apiKey: scenario.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
      ],
      collectors: {
        billing: schedule({ schedule: '*/10 * * * * *', backfill: '2d', trailingWindow: '3h' }),
        catalog: schedule(),
        clusters: schedule(),
        pods: schedule(),
        serverless: schedule(),
        stock: schedule(),
        volumes: schedule(),
      },
      budgets: [{ name: 'daily', period: 'day', amount: 500 }],
      // Teams, so the dashboard's spend-by-team panel has series to answer with.
      owners: { fromEnv: { team: ['TEAM'] }, default: { team: 'platform' } },
      capacity: { watch: [{ name: 'H200 SXM' }] },
      database: { path: join(dir, 'podwarden.db') },
      http: { listen: '127.0.0.1:0' },
      log: { level: 'info', format: 'json' },
    }),
  );
  return path;
}

/** The daemon's base URL, from its "metrics server listening" log line. */
function metricsUrlOf(child: NonNullable<typeof daemon>): Promise<string> {
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr.on('data', (chunk: Buffer) => {
      daemonLog += chunk;
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('metrics server listening')) continue;
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code) => reject(new Error(`podwarden run exited ${code} before listening:\n${daemonLog}`)));
  });
}

const one = (samples: VectorSample[], what: string): number => {
  if (samples.length !== 1) throw new Error(`${what}: ${samples.length} samples`);
  return Number(samples[0]?.value[1]);
};

describe.skipIf(!hasBinary('prometheus'))('Prometheus scraping the daemon that watches the simulator', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'podwarden-e2e-prom-'));
    scenario = demoStartingNow();
    sim = await startSimulator({ scenario, clock: new ScaledClock({ startMs: scenario.startMs, speed: 1 }) });
    startedAt = clock.now();
    daemon = spawnCli(['run', '--config', writeDaemonConfig()]);
    const metricsUrl = await metricsUrlOf(daemon);
    prometheus = await startPrometheus({
      dir,
      target: new URL(metricsUrl).host,
      ruleFiles: [packagePath('config/prometheus/rules.yml')],
      scrapeIntervalS: 2,
    });
  });

  afterAll(async () => {
    await prometheus?.stop();
    if (daemon && daemon.exitCode === null) daemon.kill('SIGKILL');
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the series the scenario implies', async () => {
    const prom = prometheus as PrometheusServer;
    await poll(
      'a few polls scraped',
      async () => {
        const runs = await prom.query(`podwarden_collector_runs_total{collector="pods"} >= 4`);
        const spend = await prom.query('podwarden_spend_dollars');
        return runs.length === 1 && spend.length > 0 && clock.now() - startedAt >= RUN_FOR_MS ? true : undefined;
      },
      { timeoutMs: 40_000, everyMs: 1_000 },
    );

    expect(one(await prom.query('up{job="podwarden"}'), 'up')).toBe(1);
    for (const pod of scenario.pods) {
      const cost = await prom.query(`podwarden_pod_cost_dollars_per_hour{account="${ACCOUNT}", pod_id="${pod.id}"}`);
      expect(one(cost, pod.id), pod.id).toBe(pod.status === 'RUNNING' ? pod.cost : 0);
      expect(cost[0]?.metric).toMatchObject({ name: pod.name, gpu_type_id: pod.gpu?.id });
    }
    const trainer = await prom.query('podwarden_pod_gpu_utilization_ratio{pod_id="train-8xh100"}');
    expect(trainer).toHaveLength(8);
    for (const gpu of trainer) expect(Number(gpu.value[1])).toBe(0.97);
    const vllm = await prom.query('podwarden_pod_gpu_memory_utilization_ratio{pod_id="infer-2xh100", gpu_index="1"}');
    expect(one(vllm, 'vllm-70b GPU 1')).toBe(0.91);

    const availability = (gpu: string) =>
      prom.query(`podwarden_gpu_availability{gpu_type_id="${gpu}", product="POD", data_center_id=""}`);
    expect(one(await availability('NVIDIA H200'), 'H200')).toBe(0);
    expect(one(await availability('NVIDIA H100 80GB HBM3'), 'H100')).toBe(1);
    expect(one(await availability('NVIDIA A100 80GB PCIe'), 'A100')).toBe(3);
    expect(one(await prom.query('podwarden_api_rate_limit_quota{window="minute"}'), 'quota')).toBe(600);
    expect(one(await prom.query('podwarden_capacity_watched{gpu_type_id="NVIDIA H200"}'), 'watched')).toBe(1);
    expect(one(await prom.query('podwarden_budget_amount_dollars{budget="daily"}'), 'amount')).toBe(500);
    // The daily budget's actual is the UTC day's account spend as billed, read in the same scrape.
    const difference = await prom.query(
      'podwarden_budget_spend_dollars{budget="daily", figure="actual"} - on (instance, job) podwarden_spend_dollars{kind="account", period="day"}',
    );
    expect(one(difference, 'actual minus spend')).toBeCloseTo(0, 6);
    expect(
      one(await prom.query('time() - podwarden_collector_last_success_timestamp_seconds{collector="pods"}'), 'age'),
    ).toBeLessThan(15);
  });

  it("reports today's Pod spend as the simulated account accrued it when billing was last read", async () => {
    const prom = prometheus as PrometheusServer;
    // One query, so the spend, its scrape time and the billing run come from the same scrape.
    const [spend] = await prom.query('podwarden_spend_dollars{kind="pods", period="day"}');
    const [scrapedAt] = await prom.query('timestamp(podwarden_spend_dollars{kind="pods", period="day"})');
    const [billedAt] = await prom.query('podwarden_collector_last_success_timestamp_seconds{collector="billing"}');
    const dayStart = Math.floor((Number(scrapedAt?.value[1]) * 1000) / DAY_MS) * DAY_MS;
    const readAt = Math.round(Number(billedAt?.value[1]) * 1000);
    let truth = 0;
    if (readAt > dayStart) {
      const response = await request(`${sim.url}/_sim/truth/accrued?kind=pods&from=${dayStart}&to=${readAt}`);
      truth = ((await response.body.json()) as { accrued: { totalAmount: number } }).accrued.totalAmount;
    }
    // The run read the current hour a moment before it ended: cents at $38 an hour.
    expect(Number(spend?.value[1])).toBeGreaterThan(truth - 0.05);
    expect(Number(spend?.value[1])).toBeLessThanOrEqual(truth + 1e-6);
    expect(truth).toBeGreaterThan(0);
  });

  it('answers every expression of the dashboard and of the alert rules', async () => {
    const prom = prometheus as PrometheusServer;
    const dashboard = JSON.parse(readFileSync(packagePath('config/grafana/dashboards/podwarden.json'), 'utf8'));
    const substitute = (expression: string) =>
      expression
        .replaceAll('$__rate_interval', '10s')
        .replaceAll('$__interval', '2s')
        .replace(/\$\{?(account|gpu_type_id)\}?/g, '.*');
    const empty: string[] = [];
    for (const panel of dashboard.panels) {
      for (const target of panel.targets ?? []) {
        const result = await prom.query(substitute(target.expr));
        if (result.length === 0 && !MAY_BE_EMPTY.has(panel.title)) empty.push(`${panel.title}: ${target.expr}`);
      }
    }
    // The datasource variable picks the Prometheus; the query variables ask it for label values.
    for (const variable of dashboard.templating.list.filter((v: { type: string }) => v.type === 'query')) {
      const match = /^label_values\((.+), (\w+)\)$/.exec(variable.definition);
      expect(match, variable.name).not.toBeNull();
      expect((await prom.query(substitute(match?.[1] ?? ''))).length, variable.name).toBeGreaterThan(0);
    }
    expect(empty).toEqual([]);

    const rules = parseYaml(readFileSync(packagePath('config/prometheus/rules.yml'), 'utf8'));
    for (const group of rules.groups) for (const rule of group.rules) await prom.query(rule.expr);
    await poll(
      'rules evaluated',
      async () => {
        const answer = await prom.api('rules');
        const loaded = (
          answer.data as { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> }
        ).groups.flatMap((group) => group.rules);
        return loaded.length > 0 && loaded.every((rule) => rule.health === 'ok') ? loaded : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const firing = (await prom.query('ALERTS{alertstate="firing"}')).map((sample) => sample.metric.alertname);
    expect(firing).toEqual([]);
  });

  it('stops cleanly on SIGTERM', async () => {
    const child = daemon as NonNullable<typeof daemon>;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(daemonLog).toContain('"msg":"stopped"');
  });
});
