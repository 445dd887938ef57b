import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealClock } from '../../src/clock.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { spawnCli } from '../helpers/cli.js';
import { runConfigYaml } from '../helpers/run-config.js';

let sim: Simulator;
let dir: string;
let configPath: string;
let dbPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-full-'));
  const scenario = loadScenario(packagePath('config/scenarios/demo.yaml'));
  sim = await startSimulator({ scenario, clock: new RealClock() });
  dbPath = join(dir, 'podwarden.db');
  configPath = join(dir, 'podwarden.yaml');
  writeFileSync(configPath, runConfigYaml(sim, { apiKey: scenario.apiKey, dbPath }));
  // An existing, migrated database: the disk fills up under a daemon that has run before.
  openDatabase(dbPath).close();
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Polls `probe` until it answers; a daemon that dies meanwhile fails the test with its output. */
async function until<T>(
  child: { exitCode: number | null },
  output: () => string,
  probe: () => T | undefined,
): Promise<T> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited with code ${child.exitCode}:\n${output()}`);
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('podwarden run on a database that cannot be written', () => {
  it('stays up, unready, says why in JSON logs, /readyz and a metric, and shuts down cleanly', async () => {
    // Room for SQLite's 32 KiB shared-memory index and a few WAL frames, not for a poll's rows:
    // every write past it fails (EFBIG), as on a full disk.
    expect(statSync(dbPath).size).toBeGreaterThan(0);
    const child = spawnCli(['run', '--config', configPath], { fileSizeLimitKiB: 48 });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit');
    try {
      const url = await until(
        child,
        () => stderr,
        () => /"metrics":"(http:\/\/[^"]+)\/metrics"/.exec(stderr)?.[1],
      );
      await until(
        child,
        () => stderr,
        () => (stderr.includes('database cannot be written') ? true : undefined),
      );
      // The failed start-up writes did not end the process: it answers, unready, with the reason.
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      const reason = await ready.text();
      expect(reason).toMatch(/^not ready: database: cannot be written \(.+: .*\(SQLITE_(FULL|IOERR)\w*\)\)/);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^podwarden_database_writable 0$/m);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
    // Every line is our logger's JSON: no raw Node stack, no node-cron colours.
    const lines = stderr.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const messages = lines.map((line) => JSON.parse(line) as { msg: string; err?: unknown });
    expect(
      messages.some((m) => m.msg === 'collector run failed' || m.msg === 'collector run could not be recorded'),
    ).toBe(true);
    expect(messages.at(-1)?.msg).toBe('stopped');
  }, 90_000);
});
