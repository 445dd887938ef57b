import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RealClock } from '../../src/clock.js';
import { recentRuns } from '../../src/db/collector-runs.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath } from '../../src/package-root.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { spawnCli } from '../helpers/cli.js';
import { runConfigYaml } from '../helpers/run-config.js';
import { parseExposition, sampleValue } from '../metrics/support.js';

const TOKEN = 'reload-test-token';

let sim: Simulator;
let apiKey: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-reload-'));
  // Every billing request takes 3 s: long enough to reload while the first billing run is in flight.
  const raw = parse(readFileSync(packagePath('config/scenarios/demo.yaml'), 'utf8'));
  raw.faults = [{ from: '0s', to: '2h', match: '/v2/billing', kind: 'latency', ms: 3000 }];
  const scenario = parseScenario(raw, 'demo with slow billing', { startMs: Date.now() });
  apiKey = scenario.apiKey;
  sim = await startSimulator({ scenario, clock: new RealClock() });
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Settings {
  amount?: number | string;
  listen?: string;
  database?: string;
}

/** The configuration file, written again by each step of a test: what a person edits before a reload. */
function writeConfig(path: string, settings: Settings = {}): void {
  writeFileSync(
    path,
    runConfigYaml(sim, {
      apiKey,
      dbPath: settings.database ?? join(dir, 'podwarden.db'),
      listen: settings.listen,
      bearerToken: TOKEN,
      rest: `collectors:
  billing: { backfill: 1d }
budgets:
  - { name: daily, period: day, amount: ${settings.amount ?? 100} }
`,
    }),
  );
}

interface Running {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  /** Everything written to stderr so far (JSON log lines). */
  stderr(): string;
  stop(): Promise<number | null>;
}

async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startDaemon(configPath: string): Promise<Running> {
  const child = spawnCli(['run', '--config', configPath]);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const url = await until(() => /"metrics":"(http:[^"]+)\/metrics"/.exec(stderr)?.[1], 'podwarden running');
  return {
    child,
    url,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      const [code] = await exited;
      return code;
    },
  };
}

async function http(url: string, options: { method?: 'GET' | 'POST'; token?: string } = {}) {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

async function metric(running: Running, name: string, labels: Record<string, string> = {}): Promise<number> {
  const reply = await http(`${running.url}/metrics`, { token: TOKEN });
  expect(reply.status).toBe(200);
  return sampleValue(parseExposition(reply.body), name, labels);
}

/** Log lines (parsed JSON) whose message matches, in order. */
function logLines(running: Running, message: RegExp): Array<Record<string, unknown> & { msg: string; time: number }> {
  return running
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => message.test(entry.msg));
}

/** Sends SIGHUP and waits for the outcome of the `count`th reload (SIGHUP or POST) to be logged. */
async function sighup(running: Running, count: number): Promise<void> {
  running.child.kill('SIGHUP');
  await until(
    () => (logLines(running, /^configuration (reloaded|not reloaded)/).length >= count ? true : undefined),
    'reload logged',
  );
}

describe('podwarden run, reloading its configuration', () => {
  it('applies a valid file on SIGHUP and POST /-/reload, and refuses an invalid one, keeping the running one', async () => {
    const configPath = join(dir, 'reload.yaml');
    writeConfig(configPath);
    const running = await startDaemon(configPath);
    try {
      const amount = () => metric(running, 'podwarden_budget_amount_dollars', { budget: 'daily' });
      expect(await amount()).toBe(100);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(1);
      const startedAt = await metric(running, 'podwarden_config_last_reload_success_timestamp_seconds');
      expect(startedAt).toBeGreaterThan(0);

      // SIGHUP: the budget's new amount is on /metrics without a restart.
      writeConfig(configPath, { amount: 250 });
      await sighup(running, 1);
      expect(await amount()).toBe(250);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(1);
      const firstReload = await metric(running, 'podwarden_config_last_reload_success_timestamp_seconds');
      expect(firstReload).toBeGreaterThanOrEqual(startedAt);

      // POST /-/reload: behind the token, never on GET.
      writeConfig(configPath, { amount: 300 });
      const anonymous = await http(`${running.url}/-/reload`, { method: 'POST' });
      expect(anonymous.status).toBe(401);
      const get = await http(`${running.url}/-/reload`, { token: TOKEN });
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe('POST');
      expect(await amount()).toBe(250);
      const posted = await http(`${running.url}/-/reload`, { method: 'POST', token: TOKEN });
      expect(posted).toMatchObject({ status: 200, body: 'configuration reloaded\n' });
      expect(await amount()).toBe(300);

      // An invalid file: refused as a whole, every problem logged as `path: message`.
      writeConfig(configPath, { amount: -5 });
      const invalid = await http(`${running.url}/-/reload`, { method: 'POST', token: TOKEN });
      expect(invalid.status).toBe(500);
      expect(invalid.body).toContain('budgets[0].amount: must be greater than 0');
      expect(await amount()).toBe(300);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(0);
      expect(logLines(running, /^budgets\[0\]\.amount: must be greater than 0$/)).toHaveLength(1);

      // SIGHUP with the same invalid file: logged the same way.
      await sighup(running, 4);
      expect(logLines(running, /^budgets\[0\]\.amount: must be greater than 0$/)).toHaveLength(2);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(0);

      // What the composition root binds once is named, and the whole reload refused.
      writeConfig(configPath, { amount: 400, listen: '127.0.0.1:9', database: join(dir, 'elsewhere.db') });
      const bound = await http(`${running.url}/-/reload`, { method: 'POST', token: TOKEN });
      expect(bound.status).toBe(500);
      expect(bound.body).toContain('http.listen: cannot change without a restart');
      expect(bound.body).toContain('database.path: cannot change without a restart');
      expect(logLines(running, /^http\.listen: cannot change without a restart/)).toHaveLength(1);
      expect(logLines(running, /^database\.path: cannot change without a restart/)).toHaveLength(1);
      expect(await amount()).toBe(300);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(0);

      // Fixed again: 1, and a later success time.
      writeConfig(configPath, { amount: 400 });
      await sighup(running, 6);
      expect(logLines(running, /^configuration reloaded$/)).toHaveLength(3);
      expect(await amount()).toBe(400);
      expect(await metric(running, 'podwarden_config_last_reload_successful')).toBe(1);
      expect(running.stderr()).not.toContain(apiKey);
      expect(running.stderr()).not.toContain(TOKEN);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  }, 90_000);

  it('lets a collector run in flight at the reload finish and be recorded', async () => {
    const configPath = join(dir, 'inflight.yaml');
    const dbPath = join(dir, 'inflight.db');
    writeConfig(configPath, { database: dbPath });
    const running = await startDaemon(configPath);
    const billingRuns = async () => {
      const database = openDatabase(dbPath, { migrate: false });
      try {
        return await recentRuns(database, { collector: 'billing', limit: 10 });
      } finally {
        database.close();
      }
    };
    try {
      // All collectors start at once; each billing request takes 3 s.
      writeConfig(configPath, { database: dbPath, amount: 120 });
      await sighup(running, 1);
      const [reloaded] = logLines(running, /^configuration reloaded$/);
      expect(reloaded).toBeDefined();
      // None had finished when the reload was applied (a run's row has no outcome until it ends).
      expect((await billingRuns()).filter((run) => run.outcome !== null)).toEqual([]);

      const [run] = await until(async () => {
        const runs = (await billingRuns()).filter((run) => run.outcome !== null);
        return runs.length > 0 ? runs : undefined;
      }, 'billing run finished');
      expect(run?.outcome).toBe('ok');
      expect(run?.startedAt).toBeLessThan(reloaded?.time as number);
      expect(run?.endedAt).toBeGreaterThan(reloaded?.time as number);
      expect(await metric(running, 'podwarden_budget_amount_dollars', { budget: 'daily' })).toBe(120);
    } finally {
      expect(await running.stop()).toBe(0);
    }
  }, 90_000);
});
