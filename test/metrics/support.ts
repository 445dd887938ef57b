import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { RealClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { Daemon, type DaemonOptions } from '../../src/daemon.js';
import { silentLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { type MetricsServer, startMetricsServer } from '../../src/web/server.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { hasPeer } from '../helpers/peers.js';

export interface DaemonHarness extends Harness {
  daemon: Daemon;
}

/**
 * The simulator on a virtual clock and a real Daemon on the same database file, for metrics
 * and server tests: `h.drive(h.daemon.collect('pods', 'sim'))` polls like the schedule would.
 */
export async function startDaemonHarness(
  scenario: string | Record<string, unknown>,
  tune?: Parameters<typeof startHarness>[1],
  options: Pick<DaemonOptions, 'commandLine'> = {},
): Promise<DaemonHarness> {
  const harness = await startHarness(scenario, tune);
  const daemon = await Daemon.open({
    ...options,
    config: harness.config,
    clock: harness.clock,
    log: silentLogger(),
    inflight: harness.inflight,
  });
  return {
    ...harness,
    daemon,
    close: async () => {
      await daemon.close();
      await harness.close();
    },
  };
}

/**
 * A scenario for the status server tests: one A40 type and one Pod, `pod-1` named `podName`,
 * running for the past hour at 20% GPU (busy, not idle) for $0.40/h.
 */
export function onePodScenario(name: string, podName = 'one') {
  return {
    name,
    start: '2026-11-02T09:00:00Z',
    apiKey: 'sim-key',
    catalog: { gpus: [{ id: 'NVIDIA A40', name: 'A40', memory: 48, price: { secure: 0.4, community: 0.35 } }] },
    pods: [
      {
        id: 'pod-1',
        name: podName,
        gpu: { id: 'NVIDIA A40', count: 1 },
        cost: 0.4,
        status: 'RUNNING',
        startedAt: '-1h',
        utilization: [{ at: '-1h', gpu: 20, memory: 10 }],
      },
    ],
  };
}

/**
 * startDaemonHarness plus the metrics and status server on it, listening on a free loopback port
 * unless `tune` says otherwise; both are closed (server first) when the current test finishes,
 * also when it fails or the server does not start.
 */
export async function startDaemonServer(
  scenario: string | Record<string, unknown>,
  tune?: Parameters<typeof startHarness>[1],
): Promise<{ h: DaemonHarness; server: MetricsServer }> {
  const h = await startDaemonHarness(scenario, (config) => {
    config.http.listen = '127.0.0.1:0';
    tune?.(config);
  });
  let server: MetricsServer | undefined;
  onTestFinished(async () => {
    await server?.close();
    await h.close();
  });
  server = await startMetricsServer({ config: h.config, daemon: h.daemon, clock: h.clock, log: silentLogger() });
  return { h, server };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (format 0.0.4), enough for our assertions. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = (pair[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Samples of one metric whose labels include every given pair. */
export function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The one sample of a metric with these labels; throws when there is none or more than one. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = find(samples, name, labels);
  if (found.length !== 1) throw new Error(`${name}${JSON.stringify(labels)}: ${found.length} samples`);
  return (found[0] as Sample).value;
}

/**
 * Whether a Prometheus binary is here. In CI (CI=true) its absence is a failure, never a skip:
 * .ci/run installs Debian's prometheus package first.
 */
export function hasBinary(name: 'promtool' | 'prometheus'): boolean {
  return hasPeer(name, 'prometheus');
}

/**
 * The names a scrape can show for every metric podwarden registers (a histogram's _bucket, _sum
 * and _count included), from a real daemon that never polls: its API points nowhere.
 */
export async function exposedMetricNames(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const metric of await exposedMetrics()) {
    names.add(metric.name);
    if (metric.type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

/** Every metric of a freshly built registry with its type and label names. */
export async function exposedMetrics(): Promise<Array<{ name: string; type: string; labelNames: string[] }>> {
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-names-'));
  const config = defaultConfig([{ name: 'main', apiKey: 'unused', restBaseUrl: 'http://127.0.0.1:9/v2' }]);
  config.database.path = join(dir, 'podwarden.db');
  const daemon = await Daemon.open({ config, clock: new RealClock(), log: silentLogger() });
  // As `podwarden run` makes them: with a configuration file to reload, and its two metrics.
  const reloads = () => ({ successful: true, lastSuccessAt: 0 });
  const metrics = createMetrics({ source: daemon, config, clock: new RealClock(), reloads });
  try {
    return metrics.registry.getMetricsAsArray().map((metric) => ({
      name: metric.name,
      type: String(metric.type),
      labelNames: [...((metric as unknown as { labelNames?: string[] }).labelNames ?? [])],
    }));
  } finally {
    metrics.close();
    await daemon.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function metricNamesIn(expression: string): string[] {
  return [...expression.matchAll(/\b(podwarden_[a-z0-9_]+)\b/g)].map((match) => match[1] as string);
}

/** prom-client's own default metrics that promtool flags (gauges named *_total); none of ours. */
const PROM_CLIENT_LINT = new Set([
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
]);

/** What `promtool check metrics` finds in an exposition, prom-client's known findings left out. */
export function promtoolProblems(exposition: string): string[] {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (result.error) throw result.error;
  return `${result.stdout}${result.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => !PROM_CLIENT_LINT.has(line.split(' ')[0] ?? ''));
}
