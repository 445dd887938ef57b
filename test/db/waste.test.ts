import { describe, expect, it } from 'vitest';
import { type BillingRecordInput, upsertBillingRecords } from '../../src/db/billing.js';
import type { Database } from '../../src/db/open.js';
import { applyRetention, type RetentionPolicy } from '../../src/db/retention.js';
import { type EndpointActivity, endpointActivity, lastComputeAt } from '../../src/db/waste.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { insertWorkerSamples } from '../helpers/store.js';
import { DAY, endpointSample, HOUR, MINUTE, migrationsBefore, podBucket, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

/** The same figures straight from the samples, read afresh every time. */
function fromSamples(database: Database, from: number): EndpointActivity[] {
  const rows = database.sqlite
    .prepare(
      `SELECT endpoint_id AS endpointId, observed_at AS at, running, idle, initializing, unhealthy
       FROM endpoint_worker_samples WHERE account = 'main' AND observed_at >= ? ORDER BY endpoint_id, observed_at`,
    )
    .all(from) as Array<{
    endpointId: string;
    at: number;
    running: number;
    idle: number;
    initializing: number;
    unhealthy: number;
  }>;
  const byEndpoint = new Map<string, EndpointActivity>();
  for (const { endpointId, at, ...counts } of rows) {
    const seen = byEndpoint.get(endpointId);
    const lastBusyAt = counts.running > 0 ? at : (seen?.lastBusyAt ?? null);
    byEndpoint.set(endpointId, { endpointId, latestAt: at, ...counts, lastBusyAt, firstAt: seen?.firstAt ?? at });
  }
  return [...byEndpoint.values()];
}

const sorted = (activity: readonly EndpointActivity[]) =>
  [...activity].sort((a, b) => a.endpointId.localeCompare(b.endpointId));

describe('endpoint activity', () => {
  it('agrees with the samples as the start moves and as samples land', async () => {
    const database = temp.open();
    // Two endpoints polled every 5 minutes; ep-b is busy in its third hour only.
    for (let at = T0; at < T0 + 6 * HOUR; at += 5 * MINUTE) {
      const busy = at >= T0 + 2 * HOUR && at < T0 + 3 * HOUR ? 1 : 0;
      await insertWorkerSamples(database, 'main', [
        endpointSample('ep-a', at, 0),
        endpointSample('ep-b', at + MINUTE, busy),
      ]);
    }
    const first = await endpointActivity(database, 'main', T0 + HOUR + 30_000);
    expect(sorted(first)).toEqual(fromSamples(database, T0 + HOUR + 30_000));
    // Every start up to the oldest sample (ep-b's at 1h01) reads the same samples.
    for (const from of [T0 + HOUR + 45_000, T0 + HOUR + MINUTE]) {
      expect(await endpointActivity(database, 'main', from)).toEqual(first);
    }
    // Past it, a sample drops out of the window.
    const later = await endpointActivity(database, 'main', T0 + HOUR + MINUTE + 1);
    expect(sorted(later)).toEqual(fromSamples(database, T0 + HOUR + MINUTE + 1));
    expect(sorted(later).map((a) => a.firstAt)).toEqual([T0 + HOUR + 5 * MINUTE, T0 + HOUR + 6 * MINUTE]);
    // Walking the start minute by minute agrees with a fresh read at every step, busy hour leaving included.
    for (let from = T0 + HOUR; from <= T0 + 5 * HOUR; from += MINUTE) {
      expect(sorted(await endpointActivity(database, 'main', from))).toEqual(fromSamples(database, from));
    }
    const settled = await endpointActivity(database, 'main', T0 + 5 * HOUR);
    expect(settled.find((a) => a.endpointId === 'ep-b')?.lastBusyAt).toBeNull();
    await insertWorkerSamples(database, 'main', [endpointSample('ep-b', T0 + 6 * HOUR, 2)]);
    const written = await endpointActivity(database, 'main', T0 + 5 * HOUR);
    expect(written.find((a) => a.endpointId === 'ep-b')?.lastBusyAt).toBe(T0 + 6 * HOUR);
    expect(sorted(written)).toEqual(fromSamples(database, T0 + 5 * HOUR));
  });

  it('follows retention deleting the samples it read, and a write by another connection', async () => {
    const database = temp.open();
    for (let at = T0; at < T0 + DAY; at += HOUR)
      await insertWorkerSamples(database, 'main', [endpointSample('ep-a', at, 1)]);
    const from = T0 + 2 * HOUR;
    expect((await endpointActivity(database, 'main', from))[0]?.firstAt).toBe(from);
    const policy: RetentionPolicy = {
      rawSamplesMs: 12 * HOUR,
      fiveMinuteRollupsMs: 30 * DAY,
      rollupsMs: 400 * DAY,
      usedLinksMs: DAY,
      outboxMs: DAY,
    };
    expect((await applyRetention(database, policy, T0 + DAY)).workerSamplesDeleted).toBe(12);
    expect(await endpointActivity(database, 'main', from)).toEqual(fromSamples(database, from));
    expect((await endpointActivity(database, 'main', from))[0]?.firstAt).toBe(T0 + 12 * HOUR);
    const other = temp.open();
    await insertWorkerSamples(other, 'main', [endpointSample('ep-c', T0 + DAY, 0)]);
    expect((await endpointActivity(database, 'main', from)).map((a) => a.endpointId).sort()).toEqual(['ep-a', 'ep-c']);
  });

  it('finds nothing in an empty window until a sample lands', async () => {
    const database = temp.open();
    expect(await endpointActivity(database, 'main', T0)).toEqual([]);
    await insertWorkerSamples(database, 'main', [endpointSample('ep-a', T0 + HOUR, 0)]);
    expect((await endpointActivity(database, 'main', T0 + MINUTE)).map((a) => a.firstAt)).toEqual([T0 + HOUR]);
  });
});

const ENDPOINTS = ['ep-a', 'ep-b', 'ep-c', 'ep-d'];
const RETAINED: Omit<RetentionPolicy, 'rawSamplesMs'> = {
  fiveMinuteRollupsMs: 30 * DAY,
  rollupsMs: 400 * DAY,
  usedLinksMs: DAY,
  outboxMs: DAY,
};

describe('endpoint_activity, the fold of the worker samples', () => {
  it('answers as the samples do through random inserts, rewrites, deletes and retention', async () => {
    const database = temp.open();
    const next = seededRandom(11);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    let now = T0;
    const checks = { samples: 0, emptied: 0, busyLost: 0 };
    for (let step = 0; step < 150; step++) {
      const roll = next();
      if (roll < 0.55) {
        // A poll: some endpoints, busy or not; now and then a late sample older than the latest.
        now += 5 * MINUTE;
        const polled = ENDPOINTS.filter(() => next() < 0.7);
        await insertWorkerSamples(
          database,
          'main',
          polled.map((id) =>
            endpointSample(id, next() < 0.1 ? now - Math.floor(next() * 48) * MINUTE : now, next() < 0.3 ? 2 : 0),
          ),
        );
      } else if (roll < 0.7) {
        // A sample written again with other counts (the collector's upsert).
        const row = database.sqlite
          .prepare('SELECT endpoint_id, observed_at FROM endpoint_worker_samples ORDER BY random() LIMIT 1')
          .raw()
          .get() as [string, number] | undefined;
        if (row) await insertWorkerSamples(database, 'main', [endpointSample(row[0], row[1], next() < 0.5 ? 1 : 0)]);
      } else if (roll < 0.85) {
        // A delete of what the fold points at: the latest, or the latest busy sample.
        const endpointId = pick(ENDPOINTS);
        const column = next() < 0.5 ? 'max(observed_at)' : 'max(CASE WHEN running > 0 THEN observed_at END)';
        database.sqlite
          .prepare(
            `DELETE FROM endpoint_worker_samples WHERE endpoint_id = ? AND observed_at =
               (SELECT ${column} FROM endpoint_worker_samples WHERE endpoint_id = ?)`,
          )
          .run(endpointId, endpointId);
      } else {
        await applyRetention(database, { rawSamplesMs: Math.floor(next() * 6) * HOUR + HOUR, ...RETAINED }, now);
      }
      const counts = database.sqlite
        .prepare(
          `SELECT count(*), count(DISTINCT endpoint_id), count(DISTINCT CASE WHEN running > 0 THEN endpoint_id END)
           FROM endpoint_worker_samples`,
        )
        .raw()
        .get() as [number, number, number];
      checks.samples = Math.max(checks.samples, counts[0]);
      if (counts[1] < ENDPOINTS.length) checks.emptied += 1;
      if (counts[2] < counts[1]) checks.busyLost += 1;
      for (const from of [T0 - DAY, now - 2 * HOUR, now - 20 * MINUTE, now - Math.floor(next() * 8) * HOUR]) {
        expect(sorted(await endpointActivity(database, 'main', from)), `step ${step}, from ${from - T0}`).toEqual(
          fromSamples(database, from),
        );
      }
    }
    // The sequence went through what the triggers must handle: many samples, endpoints emptied
    // by deletes, and endpoints whose every busy sample went.
    expect(checks.samples).toBeGreaterThan(50);
    expect(checks.emptied).toBeGreaterThan(0);
    expect(checks.busyLost).toBeGreaterThan(0);
  });

  it('is read from the fold and a quarter hour of samples, not from the whole window', async () => {
    const database = temp.open();
    const plan = database.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT a.endpoint_id, coalesce(f.first_at, (SELECT s.observed_at FROM endpoint_worker_samples s
           WHERE s.account = a.account AND s.observed_at >= 0 AND s.endpoint_id = a.endpoint_id
           ORDER BY s.observed_at LIMIT 1))
         FROM endpoint_activity a
         LEFT JOIN (SELECT endpoint_id, min(observed_at) AS first_at FROM endpoint_worker_samples
           WHERE account = 'main' AND observed_at >= 0 AND observed_at < 0 + 900000 GROUP BY endpoint_id) f
           ON f.endpoint_id = a.endpoint_id
         WHERE a.account = 'main' AND a.latest_at >= 0 ORDER BY a.endpoint_id`,
      )
      .all() as Array<{ detail: string }>;
    const details = plan.map((row) => row.detail).join('\n');
    // The samples are only ever searched by a bounded range or seeked from its start, never scanned.
    expect(details).not.toMatch(/SCAN endpoint_worker_samples|SCAN s\b/);
    expect(details).toMatch(
      /SEARCH endpoint_worker_samples USING .*INDEX .*\(account=\? AND observed_at>\? AND observed_at<\?\)/,
    );
    expect(details).toMatch(/SEARCH a USING .*INDEX .*\(account=\?\)/);
  });

  it('is folded from the samples an older podwarden stored', async () => {
    const old = temp.open('older.db', { migrationsFolder: migrationsBefore(temp.dir(), '0020_endpoint_activity') });
    for (let at = T0; at < T0 + 3 * HOUR; at += 5 * MINUTE) {
      await insertWorkerSamples(old, 'main', [
        endpointSample('ep-a', at, at < T0 + HOUR ? 1 : 0),
        endpointSample('ep-b', at + MINUTE, 0),
      ]);
    }
    old.close();
    const database = temp.open('older.db');
    for (const from of [T0 - HOUR, T0 + 30 * MINUTE, T0 + 2 * HOUR]) {
      expect(sorted(await endpointActivity(database, 'main', from))).toEqual(fromSamples(database, from));
    }
    expect((await endpointActivity(database, 'main', T0))[0]?.lastBusyAt).toBe(T0 + 55 * MINUTE);
  });
});

/** An hour of a Pod: compute when it ran, disk only when stopped. */
function podHour(podId: string, hour: number, ran: boolean): BillingRecordInput {
  return podBucket(podId, hour, ran ? 0.69 : 0);
}

/** When each Pod's compute last ended since `since`, from every stored bucket. */
function computeFromBuckets(database: Database, since: number): Map<string, number> {
  const rows = database.sqlite
    .prepare(
      `SELECT resource_id, max(end_time) FROM billing_records
       WHERE account = 'main' AND kind = 'pods' AND bucket_size = 'hour' AND start_time >= ?
         AND coalesce(json_extract(amounts, '$.gpuAmount'), 0) > 0
       GROUP BY resource_id`,
    )
    .raw()
    .all(since) as Array<[string, number]>;
  return new Map(rows);
}

describe('last compute of stopped Pods', () => {
  it('agrees with the buckets as the start moves and as billing is written', async () => {
    const database = temp.open();
    const pods = ['pod-a', 'pod-b', 'pod-c'];
    // Three days: pod-a runs its first 30 hours, pod-b every fifth hour, pod-c never.
    const records = [];
    for (let hour = 0; hour < 72; hour++) {
      records.push(
        podHour('pod-a', hour, hour < 30),
        podHour('pod-b', hour, hour % 5 === 0),
        podHour('pod-c', hour, false),
      );
    }
    await upsertBillingRecords(database, 'main', records, T0 + 72 * HOUR);
    for (let since = T0 + 20 * HOUR; since <= T0 + 70 * HOUR; since += 10 * MINUTE) {
      expect(await lastComputeAt(database, 'main', 'hour', pods, since)).toEqual(computeFromBuckets(database, since));
    }
    const since = T0 + 61 * HOUR;
    const before = await lastComputeAt(database, 'main', 'hour', pods, since);
    expect(before.get('pod-c')).toBeUndefined();
    await upsertBillingRecords(database, 'main', [podHour('pod-c', 66, true)], T0 + 73 * HOUR);
    expect((await lastComputeAt(database, 'main', 'hour', pods, since)).get('pod-c')).toBe(T0 + 67 * HOUR);
    expect(await lastComputeAt(database, 'main', 'hour', pods, since)).toEqual(computeFromBuckets(database, since));
  });
});
