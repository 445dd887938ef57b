import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { stringify as toYaml } from 'yaml';

/** A port free on loopback a moment ago, for a program that cannot be told to pick its own. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Calls `check` until it returns a value, every `everyMs`, failing after `timeoutMs` with the last problem. */
export async function poll<T>(
  what: string,
  check: () => Promise<T | undefined>,
  options: { timeoutMs: number; everyMs?: number },
): Promise<T> {
  const deadline = performance.now() + options.timeoutMs;
  let problem = 'not yet';
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      problem = (error as Error).message;
    }
    if (performance.now() > deadline) throw new Error(`${what}: gave up after ${options.timeoutMs} ms (${problem})`);
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 250));
  }
}

export interface VectorSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface PrometheusServer {
  url: string;
  /** An instant query; throws with Prometheus' error when the expression does not parse or fails. */
  query(expression: string): Promise<VectorSample[]>;
  /** Raw `GET /api/v1/<path>` JSON. */
  api(path: string): Promise<{ status: string; data: unknown; error?: string }>;
  process: ChildProcessByStdio<null, Readable, Readable>;
  stop(): Promise<void>;
}

/**
 * Debian's `prometheus` binary on a free loopback port with a generated configuration: one
 * scrape job for podwarden every `scrapeIntervalS`, and podwarden's own alert rules.
 */
export async function startPrometheus(options: {
  dir: string;
  target: string;
  ruleFiles: string[];
  scrapeIntervalS: number;
}): Promise<PrometheusServer> {
  const port = await freePort();
  const configPath = join(options.dir, 'prometheus.yml');
  const interval = `${options.scrapeIntervalS}s`;
  writeFileSync(
    configPath,
    toYaml({
      global: { scrape_interval: interval, evaluation_interval: interval },
      rule_files: options.ruleFiles,
      scrape_configs: [{ job_name: 'podwarden', static_configs: [{ targets: [options.target] }] }],
    }),
  );
  const child = spawn(
    'prometheus',
    [
      `--config.file=${configPath}`,
      `--storage.tsdb.path=${join(options.dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk) => {
    output = `${output}${chunk}`.slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const api = async (path: string) => {
    const response = await request(`${url}/api/v1/${path}`);
    return (await response.body.json()) as { status: string; data: unknown; error?: string };
  };
  const server: PrometheusServer = {
    url,
    api,
    process: child,
    async query(expression) {
      const answer = await api(`query?query=${encodeURIComponent(expression)}`);
      if (answer.status !== 'success') throw new Error(`query ${expression}: ${answer.error}`);
      return (answer.data as { result: VectorSample[] }).result;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  try {
    await poll(
      'prometheus ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${output}`);
        const response = await request(`${url}/-/ready`);
        await response.body.text();
        return response.statusCode === 200 ? true : undefined;
      },
      { timeoutMs: 20_000 },
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
