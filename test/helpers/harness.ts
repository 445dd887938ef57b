import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClientFor } from '../../src/api/from-config.js';
import type { ApiClient } from '../../src/api/index.js';
import { VirtualClock } from '../../src/clock.js';
import type { CollectContext } from '../../src/collectors/collector.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { type Database, openDatabase } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { InflightCounter } from '../../src/scheduler/inflight.js';
import { loadScenario, parseScenario, type Scenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';

export const ACCOUNT = 'sim';

export interface Harness {
  scenario: Scenario;
  clock: VirtualClock;
  sim: Simulator;
  config: Config;
  db: Database;
  dbPath: string;
  api: ApiClient;
  inflight: InflightCounter;
  /** A collect context at the clock's current time. */
  context(signal?: AbortSignal): CollectContext;
  /** Awaits `work`, moving virtual time whenever it waits on the clock alone (backoffs, pacing). */
  drive<T>(work: Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The simulator on a virtual clock, a fresh SQLite file, and an API client configured as the
 * daemon would configure it: the ground on which collector tests stand.
 */
export async function startHarness(
  source: string | Record<string, unknown>,
  tune: (config: Config) => void = () => {},
): Promise<Harness> {
  const scenario =
    typeof source === 'string' ? loadScenario(packagePath('config/scenarios', source)) : parseScenario(source, 'test');
  const clock = new VirtualClock(scenario.startMs);
  const sim = await startSimulator({ scenario, clock });
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-test-'));
  const dbPath = join(dir, 'podwarden.db');
  const config = defaultConfig([
    { name: ACCOUNT, apiKey: scenario.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
  ]);
  config.database.path = dbPath;
  config.api.retries.baseDelayMs = 1_000;
  tune(config);
  const inflight = new InflightCounter();
  const log = silentLogger();
  const account = config.accounts[0];
  if (!account) throw new Error('harness: no account');
  const api = apiClientFor(config, account, { clock, log, inflight });
  const db = openDatabase(dbPath);

  const drive = async <T>(work: Promise<T>): Promise<T> => {
    let done = false;
    const settled = work.finally(() => {
      done = true;
    });
    // The caller receives the rejection from the return value; this only keeps it from being
    // reported as unhandled while the loop below waits.
    settled.catch(() => {});
    while (!done) {
      for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
      if (done) break;
      const next = clock.nextTimerAt();
      if (inflight.count === 0 && next !== undefined) await clock.advanceTo(Math.max(next, clock.now()));
      else await Promise.race([inflight.idle(), settled.catch(() => {})]);
    }
    return settled;
  };

  return {
    scenario,
    clock,
    sim,
    config,
    db,
    dbPath,
    api,
    inflight,
    context: (signal = new AbortController().signal) => ({
      account: ACCOUNT,
      api,
      db,
      config,
      clock,
      now: clock.now(),
      log,
      signal,
    }),
    drive,
    async close() {
      await api.close();
      db.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
