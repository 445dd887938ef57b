import {
  closeSync,
  cpSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { BillingRecordInput } from '../../src/db/billing.js';
import type { ClusterInput } from '../../src/db/clusters.js';
import { type Database, type OpenOptions, openDatabase } from '../../src/db/open.js';
import type { EndpointInput, WorkerSampleInput } from '../../src/db/serverless.js';
import { packagePath } from '../../src/package-root.js';

/**
 * Real SQLite files in a fresh temporary folder per test; every database opened through
 * `open` is closed and the folder removed after the test.
 */
export function useTempDatabases(): { dir(): string; open(name?: string, options?: OpenOptions): Database } {
  let dir: string | undefined;
  const opened: Database[] = [];
  afterEach(() => {
    for (const database of opened.splice(0)) {
      if (database.sqlite.open) database.close();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const folder = () => {
    dir ??= mkdtempSync(join(tmpdir(), 'podwarden-db-'));
    return dir;
  };
  return {
    dir: folder,
    open(name = 'podwarden.db', options = {}) {
      const database = openDatabase(join(folder(), name), options);
      opened.push(database);
      return database;
    },
  };
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** 2026-11-02T00:00:00Z, the small-team scenario's start. */
export const T0 = Date.UTC(2026, 10, 2);

/** An hour of `podId`'s billing on the Pods route, `hour` hours after T0: GPU and disk amounts. */
export function podBucket(podId: string, hour: number, gpuAmount: number, diskAmount = 0.01): BillingRecordInput {
  const startTime = T0 + hour * HOUR;
  const totalAmount = gpuAmount + diskAmount;
  return {
    kind: 'pods',
    resourceId: podId,
    bucketSize: 'hour',
    startTime,
    endTime: startTime + HOUR,
    totalAmount,
    amounts: { totalAmount, gpuAmount, cpuAmount: 0, diskAmount },
  };
}

/** An 8×H100 training cluster of four Pods, `podsByStatus` counting them by status. */
export function clusterInput(clusterId: string, podsByStatus: Record<string, number>): ClusterInput {
  return {
    clusterId,
    name: `cluster-${clusterId}`,
    type: 'TRAINING',
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    gpuCountPerPod: 8,
    podCount: 4,
    podsByStatus,
    dataCenterId: 'US-KS-2',
    createdAt: T0,
  };
}

/** A queue-based endpoint keeping `workersMin` workers up: with one or more, idle while its samples show no work. */
export function endpointInput(endpointId: string, workersMin = 1): EndpointInput {
  return {
    endpointId,
    name: `${endpointId}-name`,
    type: 'QB',
    gpuPools: ['ADA_24'],
    gpuCount: 1,
    workersMin,
    workersMax: 3,
    idleTimeoutS: 5,
    createdAt: null,
  };
}

/** A worker sample of `endpointId` at `observedAt`: one idle worker beside `running` busy ones. */
export function endpointSample(endpointId: string, observedAt: number, running = 0): WorkerSampleInput {
  return { endpointId, observedAt, running, idle: 1, initializing: 0, throttled: 0, unhealthy: 0, total: running + 1 };
}

/**
 * A configuration file naming a filled database (filledDatabase), both in `dir`: what the `db`
 * commands are run on.
 */
export function configWithFilledDatabase(dir: string, name: string): { configPath: string; dbPath: string } {
  const dbPath = join(dir, `${name}.db`);
  const configPath = join(dir, `${name}.yaml`);
  writeFileSync(configPath, `accounts:\n  - name: main\n    apiKey: rpa_db_test_0001\ndatabase:\n  path: ${dbPath}\n`);
  filledDatabase(dbPath);
  return { configPath, dbPath };
}

/** A database with enough rows to fill many pages, closed cleanly (WAL checkpointed into the file). */
export function filledDatabase(path: string): void {
  const database = openDatabase(path);
  // Raw rows in one transaction: only their bulk matters here.
  const insert = database.sqlite.prepare(
    "INSERT INTO collector_runs (account, collector, started_at, ended_at, outcome, rows, error) VALUES ('main', 'pods', ?, ?, 'error', 0, ?)",
  );
  database.transaction(() => {
    for (let i = 0; i < 2_000; i++) insert.run(i * 60_000, i * 60_000 + 500, `failure ${i} `.repeat(8));
  });
  database.close();
}

/** Garbage over one page near the end of the file: a leaf of the table just filled. */
export function corruptPage(path: string): void {
  const pageSize = 4096;
  const pages = statSync(path).size / pageSize;
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, (pages - 2) * pageSize);
  } finally {
    closeSync(fd);
  }
}

/** A copy of the shipped migrations in `dir` up to, not including, `tag`: a database as an older podwarden left it. */
export function migrationsBefore(dir: string, tag: string): string {
  const folder = join(dir, `migrations-before-${tag}`);
  cpSync(packagePath('migrations'), folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  if (at <= 0) throw new Error(`no migration ${tag} in ${folder}`);
  for (const entry of journal.entries.slice(at)) rmSync(join(folder, `${entry.tag}.sql`));
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}
