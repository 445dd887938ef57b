import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealClock } from '../../src/clock.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { runCli, spawnCli } from '../helpers/cli.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-clock-start-'));
  sim = await startSimulator({
    scenario: loadScenario(packagePath('config/scenarios/demo.yaml')),
    clock: new RealClock(),
  });
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A configuration watching the simulator, its database in `dir` under `name`. */
function writeConfig(name: string): { config: string; database: string } {
  const config = join(dir, `${name}.yaml`);
  const database = join(dir, `${name}.db`);
  writeFileSync(
    config,
    `accounts:\n  - name: team\n    apiKey: sim-demo-key\n    restBaseUrl: ${sim.restBaseUrl}\n    graphqlBaseUrl: ${sim.graphqlUrl}\n` +
      `database:\n  path: ${database}\nhttp:\n  listen: 127.0.0.1:0\nlog:\n  format: json\n`,
  );
  return { config, database };
}

/** `podwarden run --clock-start`: how the compose demo's daemon reads the simulator scenario's time. */
describe('podwarden run --clock-start', () => {
  it('runs the daemon on a clock that starts at the given instant', async () => {
    const { config } = writeConfig('run');
    const child = spawnCli(['run', '--config', config, '--clock-start', '2026-11-02T09:00:00Z']);
    const exited = once(child, 'exit');
    let stderr = '';
    try {
      const base = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const url = /"metrics":"(http:\/\/127\.0\.0\.1:\d+)\/metrics"/.exec(stderr);
          if (url) resolve(url[1] as string);
        });
        child.once('exit', () => reject(new Error(`podwarden run exited before listening: ${stderr}`)));
      });
      const status = (await (await fetch(`${base}/api/status`)).json()) as { now: string };
      expect(status.now).toMatch(/^2026-11-02T09:0[01]:/);
      // A silence given beside it lasts an hour of the daemon's day, not of the system's.
      const added = await runCli([
        'silence',
        'add',
        '--match',
        'rule=idle',
        '--for',
        '1h',
        '--comment',
        'x',
        '--config',
        config,
      ]);
      expect({ code: added.code, stderr: added.stderr }).toEqual({ code: 0, stderr: '' });
      const listed = await runCli(['silence', 'list', '--config', config]);
      expect(listed.stdout).toMatch(new RegExp(`^${added.stdout.trim()}\tactive\t2026-11-02T10:0[0-2]:\\d\\dZ\t`, 'm'));
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await exited;
    expect(code).toBe(0);
  });

  it('exits 2 on a time it cannot read', async () => {
    const result = await runCli(['run', '--clock-start', 'tomorrow morning']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--clock-start: expected an ISO 8601 time such as 2026-11-02T09:00:00Z, got "tomorrow morning"/,
    );
  });
});

/** `podwarden collect --clock-start`: one collection as of a scenario's day (the backfill bench runs it so). */
describe('podwarden collect --clock-start', () => {
  it('runs the collectors once on a clock that starts at the given instant', async () => {
    const { config, database } = writeConfig('collect');
    const result = await runCli(['collect', 'pods', '--config', config, '--clock-start', '2026-11-02T09:00:00Z']);
    expect({ code: result.code, stdout: result.stdout }).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^team\tpods\tok\t/),
    });
    expect(result.stderr).toMatch(
      /"msg":"memory: heap limit .*, a full collection once the heap grows 50% past live data \(podwarden\)"/,
    );
    const db = new Sqlite(database, { readonly: true });
    const run = db.prepare("SELECT started_at AS startedAt FROM collector_runs WHERE collector = 'pods'").get() as {
      startedAt: number;
    };
    db.close();
    expect(new Date(run.startedAt).toISOString()).toMatch(/^2026-11-02T09:0[01]:/);
  });

  it('exits 2 on a time it cannot read', async () => {
    const result = await runCli(['collect', 'pods', '--clock-start', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--clock-start: expected an ISO 8601 time such as 2026-11-02T09:00:00Z, got "soon"',
    );
  });
});
