import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiClientFor } from '../src/api/from-config.js';
import type { Clock } from '../src/clock.js';
import type { CollectContext } from '../src/collectors/collector.js';
import { defaultConfig } from '../src/config/load.js';
import type { WindowSample } from '../src/db/idle-state.js';
import { type Database, openDatabase } from '../src/db/open.js';
import { silentLogger } from '../src/log.js';
import type { Scenario } from '../src/simulator/scenario.js';
import { startSimulator } from '../src/simulator/server.js';

/** The simulator on `clock`, a fresh database and the daemon's own API client and config. */
export async function benchSetup(scenario: Scenario, clock: Clock) {
  const sim = await startSimulator({ scenario, clock });
  const dir = benchDir();
  const side = daemonSide({ ...sim, apiKey: scenario.apiKey }, clock, join(dir, 'bench.db'));
  return {
    ...side,
    sim,
    dir,
    async close() {
      await side.close();
      await sim.close();
    },
  };
}

/** The daemon's side against a simulator elsewhere: its API client, config and database at `dbPath`. */
export function daemonSide(
  sim: { restBaseUrl: string; graphqlUrl: string; apiKey: string },
  clock: Clock,
  dbPath: string,
  onRequest?: () => void,
) {
  const config = defaultConfig([
    { name: 'bench', apiKey: sim.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
  ]);
  config.database.path = dbPath;
  const account = config.accounts[0];
  if (!account) throw new Error('no account');
  const log = silentLogger();
  const api = apiClientFor(config, account, { clock, log, ...(onRequest ? { onRequest } : {}) });
  const db = openDatabase(dbPath);
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
    config,
    db,
    api,
    context,
    async close() {
      await api.close();
      db.close();
    },
  };
}

/**
 * A fresh directory for a bench's databases, removed when the bench exits: a `large` run leaves
 * up to 900 MB behind, and a few dozen runs fill the disk. PODWARDEN_BENCH_KEEP=1 keeps it, as
 * does `keep` for a bench that hands its database on (bench:db-size's --db).
 */
export function benchDir(options: { keep?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-bench-'));
  if (!options.keep && !process.env.PODWARDEN_BENCH_KEEP) {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return dir;
}

export function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/**
 * The bench's figures as one last line, `bench-result {json}`, which bench/ab.ts reads (the lines
 * above it are for people and may be reworded). Numbers are unrounded.
 */
export function printResult(bench: string, figures: Record<string, number | string>): void {
  console.log(`bench-result ${JSON.stringify({ bench, ...figures })}`);
}

/**
 * Every Pod's samples with from <= observed_at <= to as one object per row, oldest first: the
 * idle benches' baseline, what a tick read before its window came from the Pods' sample tails.
 */
export function windowSampleObjects(db: Database, account: string, from: number, to: number): WindowSample[] {
  return db.sqlite
    .prepare<[string, number, number], WindowSample>(
      `SELECT pod_id AS podId, observed_at AS observedAt,
         CASE known WHEN 1 THEN 'known' ELSE 'unknown' END AS state, uptime_s AS uptimeS,
         max_gpu_util AS maxGpuUtil, max_gpu_memory_util AS maxGpuMemoryUtil
       FROM pod_samples WHERE account = ? AND observed_at >= ? AND observed_at <= ?
       ORDER BY observed_at, pod_id`,
    )
    .all(account, from, to);
}
