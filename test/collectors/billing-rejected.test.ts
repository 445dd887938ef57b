import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import { billingCollector } from '../../src/collectors/billing.js';
import { getBackfill } from '../../src/db/billing.js';
import { recentRuns } from '../../src/db/collector-runs.js';
import type { BillingKind } from '../../src/db/schema.js';
import { captureLogger } from '../api/support.js';
import { ACCOUNT, type Harness } from '../helpers/harness.js';
import {
  billingKinds,
  calmSmallTeam,
  DAY,
  expectBillingMatchesTruth,
  HOUR,
  runAt,
  storedRecords,
  useTunedHarness,
} from './billing-support.js';

const harness = useTunedHarness();
const MINUTE = 60_000;
const BAD_POD = 'infer-embed';

/**
 * A proxy in front of the simulator that spoils, in every `GET /billing/pods` answer, the record
 * of BAD_POD starting at `badStart`: its totalAmount becomes a string the schema rejects.
 */
async function spoilingProxy(h: Harness, badStart: number) {
  const upstream = new URL(h.sim.restBaseUrl).origin;
  const server: Server = createServer(async (incoming, outgoing) => {
    const answer = await fetch(`${upstream}${incoming.url}`, {
      method: incoming.method,
      headers: { authorization: incoming.headers.authorization ?? '' },
    });
    let text = await answer.text();
    if (answer.ok && (incoming.url ?? '').startsWith('/v2/billing/pods?')) {
      const body = JSON.parse(text) as { records: Array<Record<string, unknown>> };
      for (const record of body.records) {
        if (record.podId === BAD_POD && Date.parse(String(record.startTime)) === badStart) record.totalAmount = 'lots';
      }
      text = JSON.stringify(body);
    }
    outgoing.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    outgoing.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const account = h.config.accounts[0];
  if (!account) throw new Error('no account');
  const { log, captured } = captureLogger();
  const restBaseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
  const api = apiClientFor(h.config, { ...account, restBaseUrl }, { clock: h.clock, log, inflight: h.inflight });
  apis.push(api);
  return { api, log, captured };
}

const servers: Server[] = [];
const apis: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const api of apis.splice(0)) await api.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function podBucket(h: Harness, start: number) {
  return (await storedRecords(h, 'pods', start, start + HOUR)).find((record) => record.resourceId === BAD_POD);
}

const OTHER_KINDS = billingKinds.filter((kind): kind is BillingKind => kind !== 'pods');

describe('billing collector with a record the schema rejects', () => {
  it('stores the other records, keeps the bad bucket as stored, fails the run naming the record, and reads it again', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    // The first run reads hour 0 while it is under way: BAD_POD's bucket holds half an hour.
    expect((await runAt(h, billingCollector, 30 * MINUTE)).outcome).toBe('ok');
    const partial = (await podBucket(h, T0))?.totalAmount;
    expect(partial).toBeGreaterThan(0);

    const spoiled = await spoilingProxy(h, T0);
    const report = await runAt(h, billingCollector, 2 * HOUR + 30 * MINUTE, { api: spoiled.api, log: spoiled.log });

    // Recorded: the run failed, naming the route, the record and the field.
    expect(report.outcome).toBe('error');
    expect(report.error).toContain('GET /billing/pods (');
    expect(report.error).toMatch(
      new RegExp(`records\\[(\\d+)\\] \\(${BAD_POD}\\): response body records\\[\\1\\]\\.totalAmount: expected number`),
    );
    const [run] = await recentRuns(h.db, { collector: 'billing', limit: 1 });
    expect(run).toMatchObject({ outcome: 'error', error: report.error });
    const line = spoiled.captured.lines.map((text) => JSON.parse(text)).find((entry) => entry.resourceId === BAD_POD);
    expect(line).toMatchObject({ level: 40 });
    expect(line.reason).toContain('totalAmount: expected number, received string');

    // The other records are stored; BAD_POD's bucket keeps what was stored, never a bucket short of it.
    await expectBillingMatchesTruth(h, T0 + HOUR, T0 + 2 * HOUR);
    await expectBillingMatchesTruth(h, T0, T0 + 2 * HOUR, OTHER_KINDS);
    expect((await podBucket(h, T0))?.totalAmount).toBe(partial);

    // The window was not read through: the next good answer covers it again and mends the bucket.
    expect((await runAt(h, billingCollector, 3 * HOUR)).outcome).toBe('ok');
    expect((await podBucket(h, T0))?.totalAmount).toBeGreaterThan(partial as number);
    await expectBillingMatchesTruth(h, T0 - 2 * DAY, T0 + 3 * HOUR);
  });

  it('in the backfill, stores the other routes and chunks, and leaves the cursor before the bad chunk until it reads well', async () => {
    const h = await harness(calmSmallTeam());
    const T0 = h.scenario.startMs;
    const badStart = T0 - 4 * DAY + 5 * HOUR; // BAD_POD has run since 5 days before T0
    const spoiled = await spoilingProxy(h, badStart);

    const report = await runAt(h, billingCollector, 0, { api: spoiled.api, log: spoiled.log });
    expect(report.outcome).toBe('error');
    expect(report.error).toContain('totalAmount: expected number, received string');
    const pods = await getBackfill(h.db, { account: ACCOUNT, kind: 'pods', bucketSize: 'hour' });
    expect(pods?.doneAt).toBeNull();
    expect(pods?.cursorStartTime).toBeGreaterThan(badStart);
    for (const kind of OTHER_KINDS) {
      expect((await getBackfill(h.db, { account: ACCOUNT, kind, bucketSize: 'hour' }))?.doneAt, kind).not.toBeNull();
    }
    await expectBillingMatchesTruth(h, T0 - 32 * DAY, T0, OTHER_KINDS);
    await expectBillingMatchesTruth(h, badStart + HOUR, T0);
    expect(await podBucket(h, badStart)).toBeUndefined();

    expect((await runAt(h, billingCollector, HOUR)).outcome).toBe('ok');
    expect((await getBackfill(h.db, { account: ACCOUNT, kind: 'pods', bucketSize: 'hour' }))?.doneAt).not.toBeNull();
    await expectBillingMatchesTruth(h, T0 - 32 * DAY, T0 + HOUR);
    expect((await podBucket(h, badStart))?.totalAmount).toBeGreaterThan(0);
  });
});
