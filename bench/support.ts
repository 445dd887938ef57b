import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClientFor } from '../src/api/from-config.js';
import type { Clock } from '../src/clock.js';
import type { CollectContext } from '../src/collectors/collector.js';
import { defaultConfig } from '../src/config/load.js';
import { openDatabase } from '../src/db/open.js';
import { silentLogger } from '../src/log.js';
import type { Scenario } from '../src/simulator/scenario.js';
import { startSimulator } from '../src/simulator/server.js';

/** The simulator on `clock`, a fresh database and the daemon's own API client and config. */
export async function benchSetup(scenario: Scenario, clock: Clock) {
  const sim = await startSimulator({ scenario, clock });
  const dir = benchDir();
  const config = defaultConfig([
    { name: 'bench', apiKey: scenario.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
  ]);
  config.database.path = join(dir, 'bench.db');
  const account = config.accounts[0];
  if (!account) throw new Error('no account');
  const log = silentLogger();
  const api = apiClientFor(config, account, { clock, log });
  const db = openDatabase(config.database.path);
  const context = (): CollectContext => ({
    account: 'bench',
    api,
    db,
    config,
    clock,
    now: clock.now(),
    log,
    signal: new AbortController().signal,
  });
  return {
    sim,
    config,
    db,
    api,
    dir,
    context,
    async close() {
      await api.close();
      db.close();
      await sim.close();
    },
  };
}

/** A fresh folder for a benchmark's files. */
export function benchDir(): string {
  return mkdtempSync(join(tmpdir(), 'podwarden-bench-'));
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}
