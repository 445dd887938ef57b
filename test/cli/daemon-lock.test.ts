import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_RUN_ERROR, recentRuns } from '../../src/db/collector-runs.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath } from '../../src/package-root.js';
import { ScaledClock } from '../../src/simulator/scaled-clock.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { runConfigYaml } from '../helpers/run-config.js';

/**
 * Two daemons on one database file, as real processes against the simulator: the second is
 * refused at start naming the first, a daemon killed with -9 does not block the next, and the
 * runs it left in flight are marked at that next start.
 */

let sim: Simulator;
let apiKey: string;
let dir: string;
const children: Array<ReturnType<typeof spawnCli>> = [];

/** Volumes answer after two minutes: a volumes run is still in flight when the test kills its daemon. */
const SLOW_VOLUMES = `faults:
  - { from: 0s, to: 30d, match: /v2/network-volumes, kind: latency, ms: 120000 }
`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-lock-'));
  const scenarioPath = join(dir, 'scenario.yaml');
  writeFileSync(
    scenarioPath,
    `${readFileSync(packagePath('config/scenarios/demo.yaml'), 'utf8')}
${SLOW_VOLUMES}`,
  );
  const scenario = loadScenario(scenarioPath);
  apiKey = scenario.apiKey;
  sim = await startSimulator({ scenario, clock: new ScaledClock({ startMs: scenario.startMs, speed: 1 }) });
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string): { path: string; dbPath: string } {
  const dbPath = join(dir, `${name}.db`);
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, runConfigYaml(sim, { apiKey, dbPath, rest: 'collectors:\n  billing: { backfill: 1d }\n' }));
  return { path, dbPath };
}

/** A daemon process whose stderr is kept, with a wait for a line to appear in it. */
function startDaemon(args: string[]) {
  const child = spawnCli(args);
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    child,
    exited,
    stderr: () => stderr,
    waitFor: (pattern: RegExp) =>
      until(() => {
        if (pattern.test(stderr)) return true;
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode} before ${pattern}:\n${stderr}`);
        return undefined;
      }, 30_000),
  };
}

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runsOf(dbPath: string, collector: string | undefined) {
  const database = openDatabase(dbPath, { migrate: false });
  try {
    return await recentRuns(database, { collector, limit: 100 });
  } finally {
    database.close();
  }
}

describe('one daemon per database file', () => {
  it('refuses a second daemon naming the first; a first killed with -9 blocks nothing', async () => {
    const { path, dbPath } = writeConfig('two');
    const first = startDaemon(['run', '--config', path]);
    await first.waitFor(/podwarden running/);
    // The Pods are known, so `why` and `snooze` below have a Pod to talk about.
    await until(
      async () => ((await runsOf(dbPath, 'pods')).some((run) => run.outcome === 'ok') ? true : undefined),
      30_000,
    );
    const requestsBefore = sim.requestLog.entries().length;

    const second = await runCli(['run', '--config', path]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `podwarden: open database ${dbPath}: it is in use by podwarden run --config ${path}`,
    );
    expect(second.stderr).toContain(`with pid ${first.child.pid} on host ${hostname()}, running since `);
    expect(second.stderr).not.toMatch(/podwarden running/);
    // The refused daemon never reached the API, so it never asked for a stop either.
    const refusedCollect = await runCli(['collect', 'pods', '--config', path]);
    expect(refusedCollect.code).toBe(1);
    expect(refusedCollect.stderr).toContain(`with pid ${first.child.pid}`);
    expect(refusedCollect.stdout).toBe('');
    // The first daemon goes on polling meanwhile (its stock query is a POST to /graphql); no
    // request of anyone's asked for a stop.
    const meanwhile = sim.requestLog.entries().slice(requestsBefore);
    expect(meanwhile.filter((entry) => entry.method === 'POST' && entry.path !== '/graphql')).toEqual([]);

    // What only reads, or adds a row, works beside the daemon.
    for (const args of [
      ['why', 'nb-demo'],
      ['silence', 'list'],
      ['snooze', 'nb-demo', '1h', '--account', 'team'],
      ['silence', 'add', '--match', 'rule=waste', '--for', '1h', '--comment', 'beside the daemon'],
    ]) {
      const result = await runCli([...args, '--config', path]);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
    }

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual([null, 'SIGKILL']);
    // Its note of who held the lock outlives it; the lock itself does not.
    expect(existsSync(`${dbPath}.lock.json`)).toBe(true);

    const third = startDaemon(['run', '--config', path]);
    await third.waitFor(/podwarden running/);
    third.child.kill('SIGTERM');
    expect(await third.exited).toEqual([0, null]);
    // A clean stop leaves no note behind.
    expect(existsSync(`${dbPath}.lock.json`)).toBe(false);
  }, 120_000);

  it('marks the runs a daemon killed with -9 left in flight as interrupted at the next start', async () => {
    const { path, dbPath } = writeConfig('killed');
    const first = startDaemon(['run', '--config', path]);
    await first.waitFor(/podwarden running/);
    // The volumes run waits on the slow simulator; its row is written as going after a second.
    const open = await until(async () => (await runsOf(dbPath, 'volumes')).find((run) => run.outcome === null), 30_000);
    first.child.kill('SIGKILL');
    await first.exited;
    expect((await runsOf(dbPath, 'volumes')).find((run) => run.id === open.id)?.outcome).toBeNull();
    const left = (await runsOf(dbPath, undefined)).filter((run) => run.outcome === null).length;

    const next = startDaemon(['run', '--config', path]);
    await next.waitFor(/podwarden running/);
    expect(next.stderr()).toContain(
      `"runs":${left},"database":"${dbPath}","msg":"collector runs left unfinished by a stopped daemon marked aborted"`,
    );
    // Once: the next daemon's own runs are not among them.
    expect(next.stderr().match(/left unfinished/g)).toHaveLength(1);
    const marked = (await runsOf(dbPath, 'volumes')).find((run) => run.id === open.id);
    expect(marked).toMatchObject({ outcome: 'aborted', error: INTERRUPTED_RUN_ERROR, endedAt: null });
    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual([0, null]);
  }, 120_000);
});
