import { afterEach, describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/simulator/request-log.js';
import { KEY, START_MS, startTestSim, type TestSim } from './harness.js';

let t: TestSim | undefined;
afterEach(async () => {
  await t?.sim.close();
  t = undefined;
});

describe('simulator request log', () => {
  it('records method, path, query, status, virtual time and fault of each API request', async () => {
    t = await startTestSim({
      rateLimit: { minute: 1 },
      faults: [{ from: '1h', to: '2h', match: '/v2/pods', kind: 'status', status: 502 }],
    });
    await t.call('/v2/pods?includeClusterPods=true');
    await t.call('/v2/pods', { key: 'wrong' });
    await t.clock.advanceTo(START_MS + 3_600_000);
    await t.call('/v2/pods');
    await t.call('/v2/pods');
    await t.call(`/graphql?api_key=${KEY}`, { method: 'POST', body: '{"query":"{ myself { id } }"}', key: null });

    const res = await fetch(`${t.sim.url}/_sim/requests`);
    expect(res.status).toBe(200);
    const { counts, entries } = (await res.json()) as { counts: unknown; entries: Array<Record<string, unknown>> };
    expect(
      entries.map(({ method, path, query, status, atMs, fault }) => ({ method, path, query, status, atMs, fault })),
    ).toEqual([
      {
        method: 'GET',
        path: '/v2/pods',
        query: 'includeClusterPods=true',
        status: 200,
        atMs: START_MS,
        fault: undefined,
      },
      { method: 'GET', path: '/v2/pods', query: '', status: 401, atMs: START_MS, fault: undefined },
      { method: 'GET', path: '/v2/pods', query: '', status: 502, atMs: START_MS + 3_600_000, fault: 'status:502' },
      { method: 'GET', path: '/v2/pods', query: '', status: 429, atMs: START_MS + 3_600_000, fault: undefined },
      {
        method: 'POST',
        path: '/graphql',
        query: 'api_key=%5BREDACTED%5D',
        status: 200,
        atMs: START_MS + 3_600_000,
        fault: undefined,
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(KEY);
    expect(counts).toEqual({
      total: 5,
      byStatus: { 200: 2, 401: 1, 429: 1, 502: 1 },
      status429: 1,
      status5xx: 1,
      resets: 0,
    });
    for (const entry of entries) expect(entry.durationMs).toBeGreaterThanOrEqual(0);

    // Reading the log is not itself logged, and `after` returns only newer entries.
    const after = (await (await fetch(`${t.sim.url}/_sim/requests?after=4`)).json()) as { entries: unknown[] };
    expect(after.entries).toHaveLength(1);
    expect(t.sim.requestLog.counts().total).toBe(5);
  });

  it('keeps only the latest entries but counts every request', () => {
    const log = new RequestLog(3);
    for (const status of [200, 500, 429, 200, 503]) {
      log.record({ method: 'GET', path: '/v2/pods', query: '', status, atMs: 0, durationMs: 1 });
    }
    expect(log.entries().map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(log.entries(4).map((e) => e.status)).toEqual([503]);
    expect(log.counts()).toEqual({
      total: 5,
      byStatus: { 200: 2, 429: 1, 500: 1, 503: 1 },
      status429: 1,
      status5xx: 2,
      resets: 0,
    });
    expect(() => new RequestLog(0)).toThrow(/capacity/);
  });

  it('keeps the latest entries in order however often it wraps', () => {
    const log = new RequestLog(4);
    const record = (atMs: number) =>
      log.record({ method: 'GET', path: '/v2/pods', query: '', status: 200, atMs, durationMs: 1 });
    for (let atMs = 1; atMs <= 11; atMs++) record(atMs);
    expect(log.entries().map((e) => e.atMs)).toEqual([8, 9, 10, 11]);
    expect(log.entries(9).map((e) => e.seq)).toEqual([10, 11]);
  });
});

describe('simulator ground truth', () => {
  it('shows Pod states as they change, outside auth and the request log', async () => {
    t = await startTestSim();
    const before = (await (await fetch(`${t.sim.url}/_sim/truth/pods`)).json()) as { at: string; pods: unknown };
    expect(before.at).toBe('2026-11-02T00:00:00Z');
    expect(JSON.stringify(before.pods)).toContain('pod-train-1');
    expect(JSON.stringify(before.pods)).toMatch(/"pod-train-1".*RUNNING|RUNNING.*"pod-train-1"/);
    await t.call('/v2/pods/pod-train-1/action', { method: 'POST', body: JSON.stringify({ action: 'stop' }) });
    const after = (await (await fetch(`${t.sim.url}/_sim/truth/pods`)).json()) as { pods: unknown };
    expect(JSON.stringify(after.pods)).toMatch(/"pod-train-1".*EXITED|EXITED.*"pod-train-1"/);
    expect(t.sim.requestLog.counts().total).toBe(1);
  });

  it('reports the money accrued in a window, which grows with time', async () => {
    t = await startTestSim();
    await t.clock.advanceTo(START_MS + 2 * 3_600_000);
    const url = `${t.sim.url}/_sim/truth/accrued?kind=pods&id=pod-train-1&from=0s&to=1h`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { from: string; to: string; accrued: { totalAmount: number } };
    expect(body).toMatchObject({
      kind: 'pods',
      id: 'pod-train-1',
      from: '2026-11-02T00:00:00Z',
      to: '2026-11-02T01:00:00Z',
    });
    // One hour of a RUNNING Pod at 5.98 USD/h, plus a fraction of a cent for its container disk.
    const hour = body.accrued.totalAmount;
    expect(hour).toBeGreaterThanOrEqual(5.98);
    expect(hour).toBeLessThan(5.99);
    // `to` defaults to now: two hours so far, and that Pod is the only thing costing money.
    const soFar = (await (await fetch(`${t.sim.url}/_sim/truth/accrued?kind=all`)).json()) as typeof body;
    expect(soFar.to).toBe('2026-11-02T02:00:00Z');
    expect(soFar.accrued.totalAmount).toBeCloseTo(2 * hour, 6);
    const bad = await fetch(`${t.sim.url}/_sim/truth/accrued?kind=pods&from=yesterday`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { detail: string }).detail).toMatch(/^from:/);
    const badKind = await fetch(`${t.sim.url}/_sim/truth/accrued?kind=pod`);
    expect(badKind.status).toBe(400);
    expect(((await badKind.json()) as { detail: string }).detail).toMatch(/^kind: expected one of pods/);
  });

  it('reads a repeated request target as the URL parser does, the second time as the first', async () => {
    t = await startTestSim();
    const targets = [
      '/v2/pods?includeClusterPods=true',
      '/v2/./pods',
      '/v2/x/../pods?includeClusterPods=false',
      '/v2/%70ods',
      '/v2/pods?a=b c&d=%41+e',
      `/graphql?api_key=${KEY}&x=1`,
      '/v2/pods',
    ];
    const headers = { authorization: `Bearer ${KEY}` };
    const sent: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const url of targets) {
        const method = url.startsWith('/graphql') ? 'POST' : 'GET';
        const body = method === 'POST' ? '{"query":"{ myself { id } }"}' : '';
        const reply = await t.sim.exchange({ method, url, headers, body });
        if (reply === 'reset') throw new Error(`${url}: reset`);
        sent.push(`${reply.status} ${reply.bytes}`);
      }
    }
    expect(sent.slice(targets.length)).toEqual(sent.slice(0, targets.length));
    const logged = t.sim.requestLog.entries().map(({ path, query }) => ({ path, query }));
    const parsed = targets.map((url) => {
      const { pathname, searchParams } = new URL(url, 'http://x');
      if (searchParams.has('api_key')) searchParams.set('api_key', '[REDACTED]');
      return { path: pathname, query: searchParams.toString() };
    });
    expect(logged).toEqual([...parsed, ...parsed]);
    expect(logged[1]).toEqual({ path: '/v2/pods', query: '' });
    expect(logged[4]?.query).toBe('a=b+c&d=A+e');
    expect(JSON.stringify(logged)).not.toContain(KEY);
  });

  it('tells the virtual time', async () => {
    t = await startTestSim();
    await t.clock.advanceBy(90_000);
    expect(await (await fetch(`${t.sim.url}/_sim/clock`)).json()).toEqual({
      now: '2026-11-02T00:01:30Z',
      nowMs: START_MS + 90_000,
    });
  });
});
