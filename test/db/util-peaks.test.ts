import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { applyRetention } from '../../src/db/retention.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { busyPods } from '../helpers/snapshot-reads.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { DAY, HOUR, MINUTE, migrationsBefore, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const ACCOUNT = 'main';
const PODS = ['p1', 'p2', 'p3', 'p4'];

type Peak = [podId: string, observedAt: number, maxGpuUtil: number];

/** What the table holds, in key order. */
function kept(database: Database): Peak[] {
  return database.sqlite
    .prepare(
      'SELECT pod_id, observed_at, max_gpu_util FROM pod_util_peaks WHERE account = ? ORDER BY pod_id, observed_at',
    )
    .raw()
    .all(ACCOUNT) as Peak[];
}

/** Computed afresh from pod_samples: each known sample whose figure is above every later known one's. */
function expected(database: Database): Peak[] {
  const rows = database.sqlite
    .prepare(
      `SELECT pod_id, observed_at, max_gpu_util FROM pod_samples
       WHERE account = ? AND known = 1 AND max_gpu_util IS NOT NULL ORDER BY pod_id, observed_at DESC`,
    )
    .raw()
    .all(ACCOUNT) as Peak[];
  const result: Peak[] = [];
  let pod = '';
  let later = Number.NEGATIVE_INFINITY;
  for (const [podId, at, util] of rows) {
    if (podId !== pod) {
      pod = podId;
      later = Number.NEGATIVE_INFINITY;
    }
    if (util > later) result.push([podId, at, util]);
    later = Math.max(later, util);
  }
  return result.sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
}

function sample(podId: string, observedAt: number, next: () => number): PodSampleInput {
  const roll = next();
  const state = roll < 0.1 ? 'unknown' : 'known';
  // Few distinct figures, so equal figures (not kept below a later equal one) happen often.
  const figure = () => Math.floor(next() * 6) * 20;
  const gpuUtil = state === 'unknown' ? null : roll < 0.15 ? [] : roll < 0.4 ? [figure(), figure()] : [figure()];
  return {
    podId,
    observedAt,
    state,
    uptimeS: state === 'known' ? 600 : null,
    gpuUtil,
    gpuMemoryUtil: gpuUtil,
    cpuUtil: null,
    memoryUtil: null,
  };
}

describe('pod_util_peaks', () => {
  it('equals a fresh computation from pod_samples after samples in order, out of order, re-sent, and after retention', async () => {
    const database = temp.open();
    const next = seededRandom(26);
    const latest = new Map(PODS.map((podId) => [podId, T0]));
    const written: Array<[string, number]> = [];
    for (let step = 0; step < 400; step++) {
      const batch: PodSampleInput[] = [];
      const kind = next();
      for (const podId of PODS) {
        if (next() < 0.3) continue;
        const last = latest.get(podId) as number;
        let at: number;
        if (kind < 0.6 || written.length === 0) {
          at = last + MINUTE;
          latest.set(podId, at);
        } else if (kind < 0.8) {
          // Out of order: a minute not written yet, before the Pod's latest sample.
          at = last - MINUTE * Math.floor(next() * 30) - 30_000;
        } else {
          // Re-sent: a sample already stored (of any Pod), with new figures.
          at = (written[Math.floor(next() * written.length)] as [string, number])[1];
        }
        batch.push(sample(podId, at, next));
        if (next() < 0.05) batch.push(sample(podId, at, next)); // listed twice: the later copy wins
        written.push([podId, at]);
      }
      await insertPodSamples(database, ACCOUNT, batch);
      expect(kept(database), `after step ${step}`).toEqual(expected(database));
    }
    expect(kept(database).length).toBeGreaterThan(PODS.length);

    const now = T0 + 400 * MINUTE + DAY;
    for (const rawSamplesMs of [DAY + 5 * HOUR, DAY + 3 * HOUR, DAY]) {
      const policy = {
        rawSamplesMs,
        fiveMinuteRollupsMs: 2 * DAY,
        rollupsMs: 2 * DAY,
        usedLinksMs: DAY,
        outboxMs: DAY,
      };
      await applyRetention(database, policy, now);
      expect(kept(database), `after retention of ${rawSamplesMs} ms`).toEqual(expected(database));
    }
    await insertPodSamples(database, ACCOUNT, [sample('p1', now - HOUR, next), sample('p2', now, next)]);
    expect(kept(database)).toEqual(expected(database));
  });

  it('follows a re-sent sample that lowers no figure without reading the Pod history again', async () => {
    const path = join(temp.dir(), 'traced.db');
    openDatabase(path).close();
    const statements: string[] = [];
    const database = tracedDatabase(path, statements);
    const steady = (at: number): PodSampleInput => ({
      podId: 'p1',
      observedAt: at,
      state: 'known',
      uptimeS: 60,
      gpuUtil: [0],
      gpuMemoryUtil: [0],
      cpuUtil: null,
      memoryUtil: null,
    });
    for (let minute = 0; minute < 30; minute++)
      await insertPodSamples(database, ACCOUNT, [steady(T0 + minute * MINUTE)]);
    statements.length = 0;
    await insertPodSamples(database, ACCOUNT, [
      steady(T0 + 29 * MINUTE),
      { ...steady(T0 + 10 * MINUTE), gpuUtil: [0, 0] },
    ]);
    expect(statements.filter((sql) => /FROM pod_samples\s+WHERE account = \S+ AND observed_at > /.test(sql))).toEqual(
      [],
    );
    expect(kept(database)).toEqual(expected(database));
    database.close();
  });

  it('is filled from the stored samples by its migration', async () => {
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), '0025_pod_util_peaks') });
    const insert = old.sqlite.prepare(
      'INSERT INTO pod_samples (account, pod_id, observed_at, known, max_gpu_util) VALUES (?, ?, ?, ?, ?)',
    );
    const next = seededRandom(25);
    for (let minute = 0; minute < 200; minute++) {
      for (const podId of PODS) {
        const roll = next();
        const known = roll < 0.1 ? 0 : 1;
        insert.run(
          ACCOUNT,
          podId,
          T0 + minute * MINUTE,
          known,
          known && roll > 0.15 ? Math.floor(next() * 6) * 20 : null,
        );
      }
    }
    insert.run('other', 'p1', T0, 1, 50);
    old.close();
    const upgraded = temp.open('upgrade.db');
    expect(kept(upgraded).length).toBeGreaterThan(PODS.length);
    expect(kept(upgraded)).toEqual(expected(upgraded));
    expect(await busyPods(upgraded, 'other', { from: T0, above: 49, to: T0 })).toEqual(['p1']);
  });

  it('names the Pods whose busiest known figure from a time on is above a threshold, with no known sample after a time', async () => {
    const database = temp.open();
    const known = (podId: string, at: number, util: number[] | null): PodSampleInput => ({
      podId,
      observedAt: at,
      state: util === null ? 'unknown' : 'known',
      uptimeS: null,
      gpuUtil: util,
      gpuMemoryUtil: null,
      cpuUtil: null,
      memoryUtil: null,
    });
    await insertPodSamples(database, ACCOUNT, [
      known('p1', T0, [90]),
      known('p1', T0 + MINUTE, [10, 40]),
      known('p1', T0 + 2 * MINUTE, [5]),
      known('p1', T0 + 3 * MINUTE, null),
      known('p2', T0, [70]),
      known('p3', T0 + 2 * MINUTE, null),
    ]);
    const busy = async (from: number, above: number, to: number) =>
      new Set(await busyPods(database, ACCOUNT, { from, above, to }));
    expect(await busy(T0, 50, T0 + 3 * MINUTE)).toEqual(new Set(['p1', 'p2']));
    expect(await busy(T0, 70, T0 + 3 * MINUTE)).toEqual(new Set(['p1']));
    expect(await busy(T0, 90, T0 + 3 * MINUTE)).toEqual(new Set());
    // p1's latest known sample (T0 + 2 min) is newer than `to`.
    expect(await busy(T0, 50, T0 + 2 * MINUTE - 1)).toEqual(new Set(['p2']));
    expect(await busy(T0 + 1, 30, T0 + 3 * MINUTE)).toEqual(new Set(['p1']));
    expect(await busy(T0 + 1, 40, T0 + 3 * MINUTE)).toEqual(new Set());
    expect(await busy(T0 + 2 * MINUTE + 1, 0, T0 + 3 * MINUTE)).toEqual(new Set());
  });
});
