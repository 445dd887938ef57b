import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { applyRetention } from '../../src/db/retention.js';
import { sampleWindow } from '../../src/db/sample-window.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { DAY, HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const ACCOUNT = 'main';
const WINDOW = 32 * MINUTE;

type Sample = [observedAt: number, known: number, uptimeS: number, gpu: number, memory: number];

/** Each tail as stored: from when it covers, and its samples (NaN for null). */
function tails(database: Database): Map<string, { coveredFrom: number; samples: Sample[] }> {
  const rows = database.sqlite
    .prepare('SELECT pod_id, covered_from, samples FROM pod_sample_tails WHERE account = ?')
    .raw()
    .all(ACCOUNT) as Array<[string, number, Buffer]>;
  return new Map(
    rows.map(([podId, coveredFrom, blob]) => {
      const packed = new Float64Array(new Uint8Array(blob).buffer);
      const n = packed.length / 5;
      const samples = Array.from({ length: n }, (_, i) => [0, 1, 2, 3, 4].map((c) => packed[c * n + i]) as Sample);
      return [podId, { coveredFrom, samples }];
    }),
  );
}

/** One Pod's stored samples from a time on, as a tail holds them. */
function stored(database: Database, podId: string, from: number): Sample[] {
  const rows = database.sqlite
    .prepare(
      `SELECT observed_at, known, uptime_s, max_gpu_util, max_gpu_memory_util FROM pod_samples
       WHERE account = ? AND pod_id = ? AND observed_at >= ? ORDER BY observed_at`,
    )
    .raw()
    .all(ACCOUNT, podId, from) as Array<Array<number | null>>;
  return rows.map((row) => row.map((value) => value ?? Number.NaN) as Sample);
}

/** Every tail holds exactly the Pod's stored samples from its covered_from on. */
function expectTailsTrue(database: Database, what: string): void {
  for (const [podId, tail] of tails(database)) {
    expect({ what, podId, samples: tail.samples }).toEqual({
      what,
      podId,
      samples: stored(database, podId, tail.coveredFrom),
    });
  }
}

/** The window read through the tails equals the one read from pod_samples alone. */
async function expectWindowsEqual(
  database: Database,
  podIds: string[],
  from: number,
  now: number,
  what: string,
): Promise<void> {
  const plain = (series: Awaited<ReturnType<typeof sampleWindow>>) =>
    [...series.values()]
      .filter((s) => podIds.includes(s.podId))
      // Columns as arrays: a tail's are views of its blob.
      .map((s) => ({
        ...s,
        ...Object.fromEntries(
          (['observedAt', 'known', 'uptimeS', 'maxGpuUtil', 'maxGpuMemoryUtil'] as const).map((c) => [
            c,
            Array.from(s[c]),
          ]),
        ),
      }))
      .sort((a, b) => a.podId.localeCompare(b.podId));
  expect({ what, held: plain(await sampleWindow(database, ACCOUNT, from, now, podIds)) }).toEqual({
    what,
    held: plain(await sampleWindow(database, ACCOUNT, from, now)),
  });
}

function sample(podId: string, observedAt: number, next: () => number): PodSampleInput {
  const roll = next();
  const state = roll < 0.1 ? 'unknown' : 'known';
  const figure = () => Math.floor(next() * 5) * 25;
  return {
    podId,
    observedAt,
    state,
    uptimeS: state === 'unknown' ? null : Math.floor((observedAt - T0) / 1000),
    gpuUtil: state === 'unknown' ? null : roll < 0.15 ? [] : [figure(), figure()],
    gpuMemoryUtil: state === 'unknown' || roll < 0.2 ? null : [figure()],
    cpuUtil: 10,
    memoryUtil: 20,
  };
}

/** A file database and a connection to it that records every statement it runs. */
function traced(): { db: Database; statements: string[] } {
  const path = join(temp.dir(), 'podwarden.db');
  openDatabase(path).close();
  const statements: string[] = [];
  return { db: tracedDatabase(path, statements), statements };
}

describe('pod_sample_tails', () => {
  it('holds what pod_samples holds after polls in and out of order, re-sent samples, gaps and a Pod gone', async () => {
    const { db, statements } = traced();
    const next = seededRandom(26);
    const pods = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (let m = 0; m < 150; m++) {
      const at = T0 + m * MINUTE;
      // p4 is gone from minute 40 to 100 (its tail goes, and comes back covering what follows); p5 is new at minute 60; p2 misses a poll now and then (a gap).
      const polled = pods.filter(
        (p) => (p !== 'p4' || m < 40 || m >= 100) && (p !== 'p5' || m >= 60) && (p !== 'p2' || next() > 0.2),
      );
      const batch = polled.map((podId) => sample(podId, at, next));
      // Now and then a sample re-sent late, inside the horizon or beyond it.
      if (m > 0 && next() < 0.3) batch.push(sample('p1', at - Math.floor(next() * 50) * MINUTE, next));
      if (next() < 0.1) batch.push(sample('p3', at, next));
      insertPodSamples(db, ACCOUNT, batch, at - WINDOW);
      const now = at + 30_000;
      expectTailsTrue(db, `minute ${m}`);
      await expectWindowsEqual(db, pods, now - WINDOW, now, `minute ${m}`);
      await expectWindowsEqual(db, pods, now - 3 * WINDOW, now, `minute ${m}, a longer window`);
      // The Pods still polled are read from their tails alone: no row of pod_samples.
      statements.length = 0;
      await sampleWindow(db, ACCOUNT, now - WINDOW, now, ['p1', 'p3']);
      expect(statements.filter((sql) => sql.includes('pod_samples'))).toEqual([]);
      // p4's tail went once it held nothing within the horizon.
      if (m === 99) expect([...tails(db).keys()].sort()).toEqual(['p1', 'p2', 'p3', 'p5']);
    }
  });

  it('drops with retention what retention deletes', async () => {
    const { db } = traced();
    const next = seededRandom(7);
    for (let m = 0; m < 4 * 60; m += 5) {
      // No horizon: every sample stays in the tail until retention cuts it.
      insertPodSamples(db, ACCOUNT, [sample('p1', T0 + m * MINUTE, next), sample('p2', T0 + m * MINUTE, next)], null);
    }
    insertPodSamples(db, ACCOUNT, [sample('p3', T0, next)], null);
    const policy = {
      rawSamplesMs: DAY,
      fiveMinuteRollupsMs: 7 * DAY,
      rollupsMs: 400 * DAY,
      usedLinksMs: DAY,
      outboxMs: DAY,
    };
    await applyRetention(db, policy, T0 + DAY + 2 * HOUR);
    expectTailsTrue(db, 'after retention');
    expect([...tails(db).keys()].sort()).toEqual(['p1', 'p2']);
    expect(tails(db).get('p1')?.samples[0]?.[0]).toBe(T0 + 2 * HOUR);
  });

  it('covers a longer window once its tail has grown, and reads pod_samples until then', async () => {
    const { db, statements } = traced();
    const next = seededRandom(3);
    let window = WINDOW;
    for (let m = 0; m < 120; m++) {
      const at = T0 + m * MINUTE;
      // A reload at minute 60 doubles the window: the tail keeps more from there on, and covers
      // it from minute 91 (it was cut at minute 59 - 32 = 27, the window reaches back 64).
      if (m === 60) window = 2 * WINDOW;
      insertPodSamples(db, ACCOUNT, [sample('p1', at, next)], at - window);
      const now = at + 30_000;
      statements.length = 0;
      await expectWindowsEqual(db, ['p1'], now - window, now, `minute ${m}`);
      const read = statements.filter((sql) => sql.includes('FROM pod_samples'));
      // One statement from pod_samples for the plain read; a second one while the tail is short.
      expect({ m, reads: read.length }).toEqual({ m, reads: m >= 60 && m < 91 ? 2 : 1 });
    }
    expectTailsTrue(db, 'after the reload');
  });

  it('starts, on a database migrated with samples stored, covering only what follows them', async () => {
    const { db, statements } = traced();
    const next = seededRandom(11);
    for (let m = 0; m < 20; m++) insertPodSamples(db, ACCOUNT, [sample('p1', T0 + m * MINUTE, next)], null);
    // As migration 0029 leaves a database: samples, and no tail yet.
    db.sqlite.exec('DELETE FROM pod_sample_tails');
    for (let m = 20; m < 60; m++) {
      const at = T0 + m * MINUTE;
      insertPodSamples(db, ACCOUNT, [sample('p1', at, next)], at - WINDOW);
      const now = at + 30_000;
      expectTailsTrue(db, `minute ${m}`);
      statements.length = 0;
      await expectWindowsEqual(db, ['p1'], now - WINDOW, now, `minute ${m}`);
      const read = statements.filter((sql) => sql.includes('FROM pod_samples'));
      // Covered once the window starts after minute 19: from minute 51.
      expect({ m, reads: read.length }).toEqual({ m, reads: m < 51 ? 2 : 1 });
    }
  });
});
