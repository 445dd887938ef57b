import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import { billingCollector, CHUNK_MS } from '../../src/collectors/billing.js';
import { BILLING_ROUTES } from '../../src/collectors/billing-routes.js';
import { getBackfill } from '../../src/db/billing.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import {
  billingKinds,
  calmSmallTeam,
  DAY,
  expectBillingMatchesTruth,
  runAt,
  storedRecords,
  useTunedHarness,
} from './billing-support.js';

const harness = useTunedHarness();

/** The default backfill (30 days) before the default re-read window (48 h), in chunks of CHUNK_MS. */
const CHUNKS_PER_KIND = (30 * DAY) / CHUNK_MS;
const KINDS = billingKinds.length;

async function backfills(h: Harness) {
  const progress = [];
  for (const kind of billingKinds)
    progress.push(await getBackfill(h.db, { account: ACCOUNT, kind, bucketSize: 'hour' }));
  return progress;
}

/** An API client that aborts the run once `limit` requests have been answered. */
function abortingClient(h: Harness, limit: number) {
  const controller = new AbortController();
  let answered = 0;
  const account = h.config.accounts[0];
  if (!account) throw new Error('no account');
  const api = apiClientFor(h.config, account, {
    clock: h.clock,
    log: silentLogger(),
    inflight: h.inflight,
    onRequest: () => {
      if (++answered === limit) controller.abort(new Error('simulated crash'));
    },
  });
  return { api, signal: controller.signal };
}

/** Log lines as JSON objects, from a logger writing to memory. */
function capturedLog() {
  const stream = new PassThrough();
  const lines: Array<Record<string, unknown>> = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
  });
  return { log: createLogger({ level: 'info', destination: stream }), lines };
}

describe('billing backfill', () => {
  it('killed after a few chunks, resumes where it stopped: no chunk fetched twice, no duplicates, totals equal the truth', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const from = T0 - 2 * DAY;
    const crashing = abortingClient(h, 3 * KINDS + 2); // about three chunks a route stored
    const first = capturedLog();

    const crashed = await runAt(h, billingCollector, 0, { ...crashing, log: first.log });
    await crashing.api.close();

    expect(crashed).toMatchObject({ outcome: 'aborted', error: 'simulated crash' });
    // Each route walks back at its own pace, a chunk at a time: its cursor is where its last
    // chunk stored whole begins, and everything from there on is stored.
    const cursors = (await backfills(h)).map((backfill) => backfill?.cursorStartTime as number);
    for (const backfill of await backfills(h)) expect(backfill?.doneAt).toBeNull();
    for (const [k, cursor] of cursors.entries()) {
      expect((from - cursor) % CHUNK_MS).toBe(0);
      await expectBillingMatchesTruth(h, cursor, from, [billingKinds[k] as (typeof billingKinds)[number]]);
    }
    const chunksDone = cursors.reduce((sum, cursor) => sum + (from - cursor) / CHUNK_MS, 0);
    expect(chunksDone).toBeGreaterThanOrEqual(2 * KINDS);
    const total = CHUNKS_PER_KIND * KINDS;
    expect(first.lines.map((line) => line.msg)).toContain(`billing backfill: stopped at ${chunksDone}/${total} chunks`);

    const seq = h.sim.requestLog.lastSeq();
    const second = capturedLog();
    const resumed = await runAt(h, billingCollector, 0, { log: second.log });

    expect(resumed.outcome).toBe('ok');
    const requests = h.sim.requestLog.entries(seq).map((entry) => new URLSearchParams(entry.query));
    const starts = requests.map((query) => Date.parse(query.get('startTime') ?? ''));
    // The 48 h re-read in one request per route, then the rest: no stored chunk is asked again.
    expect(requests.length).toBe(total - chunksDone + KINDS);
    const paths = h.sim.requestLog.entries(seq).map((entry) => entry.path);
    for (const [k, cursor] of cursors.entries()) {
      const path = BILLING_ROUTES[billingKinds[k] as (typeof billingKinds)[number]].op.replace('GET ', '');
      const asked = starts.filter((start, i) => (paths[i] ?? '').endsWith(path) && start < from);
      expect(asked.filter((start) => start >= cursor)).toEqual([]);
      expect(asked.length).toBe((cursor - (from - 30 * DAY)) / CHUNK_MS);
    }
    expect(second.lines.map((line) => line.msg)).toContain('billing backfill: done');
    // Without a terminal, progress is a log line about every 10 %.
    const percents = second.lines
      .filter((line) => /^billing backfill: \d+%$/.test(String(line.msg)))
      .map((l) => l.percent);
    expect(percents.length).toBeGreaterThanOrEqual(8);
    expect(percents).toEqual([...percents].sort((a, b) => Number(a) - Number(b)));
    for (const backfill of await backfills(h)) {
      expect(backfill).toMatchObject({
        cursorStartTime: from - 30 * DAY,
        targetStartTime: from - 30 * DAY,
        doneAt: T0,
      });
    }
    await expectBillingMatchesTruth(h, from - 30 * DAY, T0);
  });

  it('while the first run walks back, what is stored reaches unbroken from each cursor up to now', async () => {
    // Rules read billing while the backfill runs (a tick comes every 30 s): a Pod's last compute
    // and the month so far must be there, and a cursor must mean that history begins there.
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const crashing = abortingClient(h, 3 * KINDS + 2);

    const crashed = await runAt(h, billingCollector, 0, crashing);
    await crashing.api.close();

    expect(crashed).toMatchObject({ outcome: 'aborted', error: 'simulated crash' });
    const cursors = (await backfills(h)).map((backfill) => backfill?.cursorStartTime as number);
    expect(Math.min(...cursors)).toBeLessThan(T0 - 2 * DAY);
    for (const [k, cursor] of cursors.entries()) {
      const kind = billingKinds[k] as (typeof billingKinds)[number];
      await expectBillingMatchesTruth(h, cursor, T0, [kind]);
      if (kind === 'network_volumes') expect((await storedRecords(h, kind, T0 - 2 * DAY, T0)).length).toBe(2 * 48);
    }
  });

  it('asks for the next chunk while it stores the current one; stopped meanwhile, records no chunk done before the one before it', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const from = T0 - 2 * DAY;
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    // Without an in-flight counter, as in the daemon: requests may go ahead of their turn.
    const controller = new AbortController();
    const api = apiClientFor(h.config, account, { clock: h.clock, log: silentLogger() });
    // The Pod poll keeps one slot of its own (api/semaphore.ts): billing has all but that one.
    expect(api.requestsAhead).toBe(h.config.api.concurrency - 2);
    // When a Pods chunk is asked for, where the stored cursor stands.
    let askedAhead = 0;
    // Read synchronously, at the very moment the chunk is asked for.
    const cursorRow = h.db.sqlite
      .prepare<[string], number>(
        "SELECT cursor_start_time FROM billing_backfill WHERE account = ? AND kind = 'pods' AND bucket_size = 'hour'",
      )
      .pluck();
    const podsCursor = () => cursorRow.get(ACCOUNT);
    const billingPods = api.rest.billingPods.bind(api.rest);
    api.rest.billingPods = (query, call) => {
      const cursor = podsCursor();
      if (cursor !== undefined && Date.parse(query?.endTime ?? '') < cursor) askedAhead++;
      return billingPods(query, call);
    };
    const podsPath = BILLING_ROUTES.pods.op.replace('GET ', '');
    let podsAnswered = 0;
    const log = h.sim.requestLog;
    const record = log.record.bind(log);
    log.record = (entry) => {
      if (entry.path.endsWith(podsPath) && ++podsAnswered === 6) controller.abort(new Error('simulated crash'));
      return record(entry);
    };

    const crashed = await runAt(h, billingCollector, 0, { api, signal: controller.signal });

    expect(crashed).toMatchObject({ outcome: 'aborted', error: 'simulated crash' });
    expect(askedAhead).toBeGreaterThan(0);
    // The sixth chunk was asked for before the fifth was stored: neither is recorded done
    // unless every chunk before it is stored, so from each cursor on, everything is stored.
    const cursors = (await backfills(h)).map((backfill) => backfill?.cursorStartTime as number);
    for (const [k, cursor] of cursors.entries()) {
      expect((from - cursor) % CHUNK_MS).toBe(0);
      await expectBillingMatchesTruth(h, cursor, from, [billingKinds[k] as (typeof billingKinds)[number]]);
    }
    expect(cursors[billingKinds.indexOf('pods')]).toBeGreaterThanOrEqual(from - 5 * CHUNK_MS);

    const resumed = await runAt(h, billingCollector, 0, { api });
    await api.close();

    expect(resumed.outcome).toBe('ok');
    for (const backfill of await backfills(h))
      expect(backfill).toMatchObject({ cursorStartTime: from - 30 * DAY, doneAt: T0 });
    await expectBillingMatchesTruth(h, from - 30 * DAY, T0);
  });

  it('restarted days after a crash, also reads what happened in between', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const crashing = abortingClient(h, 2 * KINDS + 1);
    expect((await runAt(h, billingCollector, 0, crashing)).outcome).toBe('aborted');
    await crashing.api.close();

    expect((await runAt(h, billingCollector, 3 * DAY)).outcome).toBe('ok');

    // The first run never completed, and day 1 is older than the 48 h window of day 3: only
    // reaching back to where the backfill began reads it.
    await expectBillingMatchesTruth(h, T0 - 32 * DAY, T0 + 3 * DAY);
    expect((await storedRecords(h, 'network_volumes', T0 - DAY, T0 + DAY)).length).toBe(2 * 48);
  });
});
