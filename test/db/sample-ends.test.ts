import { describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/open.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { applyRetention } from '../../src/db/retention.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { unknownPodsSince } from '../helpers/snapshot-reads.js';
import { DAY, HOUR, MINUTE, migrationsBefore, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const ACCOUNT = 'main';
const PODS = ['p1', 'p2', 'p3', 'p4', 'p5'];

type Ends = [podId: string, latestAt: number, latestKnownAt: number | null, unknownSince: number | null];

/** What the table holds for an account, by Pod. */
function held(database: Database, account = ACCOUNT): Ends[] {
  return database.sqlite
    .prepare(
      'SELECT pod_id, latest_at, latest_known_at, unknown_since FROM pod_sample_ends WHERE account = ? ORDER BY pod_id',
    )
    .raw()
    .all(account) as Ends[];
}

/** The stored samples of an account, per Pod, oldest first: [observedAt, known]. */
function samplesByPod(database: Database, account = ACCOUNT): Map<string, Array<[number, number]>> {
  const rows = database.sqlite
    .prepare('SELECT pod_id, observed_at, known FROM pod_samples WHERE account = ? ORDER BY pod_id, observed_at')
    .raw()
    .all(account) as Array<[string, number, number]>;
  const byPod = new Map<string, Array<[number, number]>>();
  for (const [podId, at, known] of rows) byPod.set(podId, [...(byPod.get(podId) ?? []), [at, known]]);
  return byPod;
}

/** Computed afresh from pod_samples. */
function expected(database: Database, account = ACCOUNT): Ends[] {
  return [...samplesByPod(database, account)].map(([podId, samples]) => {
    const latest = (samples.at(-1) as [number, number])[0];
    const known = samples.filter(([, k]) => k === 1).at(-1)?.[0] ?? null;
    const after = samples.find(([at]) => known === null || at > known)?.[0] ?? null;
    return [podId, latest, known, known === latest ? null : after];
  });
}

/** What the stuck-starting check needs from `from` on, computed afresh from the samples since. */
function expectedSince(database: Database, from: number) {
  const result = new Map<string, { latestAt: number; lastKnownAt: number | null; unknownSince: number }>();
  for (const [podId, all] of samplesByPod(database)) {
    const since = all.filter(([at]) => at >= from);
    const latest = since.at(-1);
    if (latest === undefined || latest[1] === 1) continue;
    const lastKnownAt = since.filter(([, k]) => k === 1).at(-1)?.[0] ?? null;
    const unknownSince = since.find(([at]) => lastKnownAt === null || at > lastKnownAt)?.[0] as number;
    result.set(podId, { latestAt: latest[0], lastKnownAt, unknownSince });
  }
  return result;
}

function sample(podId: string, observedAt: number, known: boolean): PodSampleInput {
  return {
    podId,
    observedAt,
    state: known ? 'known' : 'unknown',
    uptimeS: known ? 600 : null,
    gpuUtil: known ? [0] : null,
    gpuMemoryUtil: known ? [0] : null,
    cpuUtil: null,
    memoryUtil: null,
  };
}

describe('pod_sample_ends', () => {
  it('equals a fresh computation from pod_samples after samples in order, out of order, re-sent, and after retention', async () => {
    const database = temp.open();
    const next = seededRandom(26);
    const latest = new Map(PODS.map((podId) => [podId, T0]));
    const written: Array<[string, number]> = [];
    let unknownRuns = 0;
    let neverKnown = 0;
    // Runs of unknown samples (a Pod starting, or losing its runtime) as well as single ones.
    const unknownOdds = new Map(PODS.map((podId, i) => [podId, [0.1, 0.5, 0.9, 0.3, 0.7][i] as number]));
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
          // Re-sent: a sample already stored (of any Pod), known or not this time.
          at = (written[Math.floor(next() * written.length)] as [string, number])[1];
        }
        batch.push(sample(podId, at, next() >= (unknownOdds.get(podId) as number)));
        if (next() < 0.05) batch.push(sample(podId, at, next() < 0.5)); // listed twice: the later copy wins
        written.push([podId, at]);
      }
      if (step % 50 === 49) unknownOdds.set(PODS[step % PODS.length] as string, next());
      await insertPodSamples(database, ACCOUNT, batch);
      expect(held(database), `after step ${step}`).toEqual(expected(database));
      unknownRuns += held(database).filter(
        ([, , known, unknownSince]) => unknownSince !== null && known !== null,
      ).length;
      neverKnown += held(database).filter(([, , known]) => known === null).length;
    }
    expect(unknownRuns).toBeGreaterThan(100);
    expect(neverKnown).toBeGreaterThan(0);

    // Unknown runs across the first cutoff: p6 after a known sample before it, p7 never known.
    const run = (podId: string, from: number) =>
      Array.from({ length: (170 - from) / 10 + 1 }, (_, i) => sample(podId, T0 + (from + 10 * i) * MINUTE, false));
    await insertPodSamples(database, ACCOUNT, [
      sample('p6', T0 + 30 * MINUTE, true),
      ...run('p6', 40),
      ...run('p7', 10),
    ]);
    expect(held(database)).toEqual(expected(database));
    // Cutoffs at T0 + 1 h, 2 h, 2 h again and 3 h: the Pods' latest samples are near T0 + 170 min.
    const now = T0 + DAY + 3 * HOUR;
    expect(Math.max(...latest.values())).toBeLessThan(T0 + 3 * HOUR);
    for (const rawSamplesMs of [DAY + 2 * HOUR, DAY + HOUR, DAY + 30 * MINUTE, DAY]) {
      const policy = {
        rawSamplesMs,
        fiveMinuteRollupsMs: 2 * DAY,
        rollupsMs: 2 * DAY,
        usedLinksMs: DAY,
        outboxMs: DAY,
      };
      applyRetention(database, policy, now);
      expect(held(database), `after retention of ${rawSamplesMs} ms`).toEqual(expected(database));
    }
    await insertPodSamples(database, ACCOUNT, [sample('p1', now - HOUR, false), sample('p2', now, false)]);
    expect(held(database)).toEqual(expected(database));
  });

  it('lists the Pods whose latest sample is unknown as the raw samples since a time say', async () => {
    const database = temp.open();
    const next = seededRandom(7);
    for (let step = 0; step < 120; step++) {
      const at = T0 + Math.floor(next() * 90) * MINUTE;
      const pods = PODS.filter(() => next() < 0.7);
      await insertPodSamples(
        database,
        ACCOUNT,
        pods.map((podId) => sample(podId, at, next() < 0.6)),
      );
      for (const from of [T0 - MINUTE, T0 + 20 * MINUTE, T0 + 45 * MINUTE, T0 + 80 * MINUTE, T0 + 95 * MINUTE]) {
        expect(await unknownPodsSince(database, ACCOUNT, from), `step ${step}, from ${from - T0}`).toEqual(
          expectedSince(database, from),
        );
      }
    }
  });

  it('is filled from the stored samples by its migration', () => {
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), '0026_pod_sample_ends') });
    const insert = old.sqlite.prepare(
      'INSERT INTO pod_samples (account, pod_id, observed_at, known, max_gpu_util) VALUES (?, ?, ?, ?, ?)',
    );
    const next = seededRandom(25);
    for (let minute = 0; minute < 200; minute++) {
      for (const [i, podId] of PODS.entries()) {
        // p1 never known, p2 always, the others now and then.
        const known = i === 0 ? 0 : i === 1 ? 1 : next() < 0.5 ? 1 : 0;
        insert.run(ACCOUNT, podId, T0 + minute * MINUTE, known, known ? 0 : null);
      }
    }
    insert.run('other', 'p1', T0, 0, null);
    old.close();
    const upgraded = temp.open('upgrade.db');
    expect(held(upgraded)).toEqual(expected(upgraded));
    expect(held(upgraded, 'other')).toEqual([['p1', T0, null, T0]]);
  });
});
