import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealClock } from '../../src/clock.js';
import { recentRuns } from '../../src/db/collector-runs.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { runConfigYaml } from '../helpers/run-config.js';

let sim: Simulator;
let apiKey: string;
let dir: string;

/** A configuration pointing at the in-process simulator, with schedules fast enough for a test. */
function writeConfig(name: string, extra = ''): { path: string; dbPath: string } {
  const dbPath = join(dir, `${name}.db`);
  const path = join(dir, `${name}.yaml`);
  writeFileSync(
    path,
    runConfigYaml(sim, {
      apiKey,
      dbPath,
      rest: `collectors:
  pods: { schedule: "*/2 * * * * *" }
  billing: { backfill: 1d }
${extra}`,
    }),
  );
  return { path, dbPath };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-run-'));
  const scenario = loadScenario(packagePath('config/scenarios/demo.yaml'));
  apiKey = scenario.apiKey;
  sim = await startSimulator({ scenario, clock: new RealClock() });
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('podwarden run', () => {
  it('collects on its schedules and, on SIGTERM, finishes, closes the database and exits 0', async () => {
    const { path, dbPath } = writeConfig('run');
    const child = spawnCli(['run', '--config', path]);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit');
    try {
      await until(() => (/podwarden running/.test(stderr) ? true : undefined), 20_000);
      // It says at start what memory it runs under: Node's heap limit and its pace of full collections.
      expect(stderr).toMatch(
        /memory: heap limit \d+(\.\d+)? [MG]B, a full collection once the heap grows 50% past live data \(podwarden\)/,
      );
      // Two Pod polls at least: the one at start and a scheduled one.
      await until(async () => {
        const db = openDatabase(dbPath, { migrate: false });
        try {
          const ok = (await recentRuns(db, { collector: 'pods', limit: 10 })).filter((r) => r.outcome === 'ok');
          return ok.length >= 2 ? ok : undefined;
        } finally {
          db.close();
        }
      }, 20_000);
    } finally {
      child.kill('SIGTERM');
    }
    // The 10 s promise is the 7 s grace in run.ts; timing is not asserted on a shared machine.
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toMatch(/"msg":"stopped"/);
    expect(stderr).not.toContain(apiKey);
  }, 60_000);
});

describe('podwarden collect', () => {
  it('runs the named collectors once for every account and prints one line per run', async () => {
    const { path } = writeConfig('collect');
    const result = await runCli(['collect', 'pods', 'volumes', '--config', path]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split('\t').slice(0, 3))).toEqual([
      ['team', 'pods', 'ok'],
      ['team', 'volumes', 'ok'],
    ]);
  });

  it('exits 1 when a collector fails, naming the error', async () => {
    const path = join(dir, 'broken.yaml');
    writeFileSync(
      path,
      `accounts:\n  - name: team\n    apiKey: wrong-key-1234\n    restBaseUrl: ${sim.restBaseUrl}\n    graphqlBaseUrl: ${sim.graphqlUrl}\ndatabase:\n  path: ${join(dir, 'broken.db')}\n`,
    );
    const result = await runCli(['collect', 'pods', '--config', path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/team\tpods\terror\t0 rows\t\d+ ms\s+GET \/pods: 401/);
    expect(result.stdout + result.stderr).not.toContain('wrong-key-1234');
  });

  it('exits 2 for an unknown collector name', async () => {
    const { path } = writeConfig('usage');
    const result = await runCli(['collect', 'nonsense', '--config', path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown collector nonsense');
  });
});
