import { afterEach, describe, expect, it } from 'vitest';
import { START_MS, startTestSim, type TestSim, until } from './harness.js';

let t: TestSim;
afterEach(async () => {
  await t?.sim.close();
});

const HOUR = 3_600_000;

describe('simulator faults', () => {
  it('answers a status fault on matching paths inside its window only', async () => {
    t = await startTestSim({ faults: [{ from: '2h', to: '2h10m', match: '/v2/pods', kind: 'status', status: 503 }] });
    expect((await t.call('/v2/pods')).status).toBe(200);
    await t.clock.advanceTo(START_MS + 2 * HOUR);
    const broken = await t.call('/v2/pods/pod-train-1');
    expect(broken.status).toBe(503);
    expect(broken.headers.get('content-type')).toBe('application/problem+json');
    expect(await broken.json()).toMatchObject({ title: 'Service Unavailable', status: 503 });
    expect((await t.call('/v2/catalog/gpus')).status).toBe(200);
    await t.clock.advanceTo(START_MS + 2 * HOUR + 10 * 60_000);
    expect((await t.call('/v2/pods')).status).toBe(200);
    expect(t.sim.requestLog.entries().map((e) => [e.status, e.fault ?? null])).toEqual([
      [200, null],
      [503, 'status:503'],
      [200, null],
      [200, null],
    ]);
  });

  it('delays a response by a latency fault, on the simulator clock', async () => {
    t = await startTestSim({ faults: [{ from: '0s', to: '1h', match: '/v2/', kind: 'latency', ms: 3000 }] });
    let settled = false;
    const pending = t.call('/v2/pods').then((res) => {
      settled = true;
      return res;
    });
    await until(() => t.clock.nextTimerAt() !== undefined, 'the simulator to start its delay');
    expect(t.clock.nextTimerAt()).toBe(START_MS + 3000);
    await t.clock.advanceBy(2999);
    expect(settled).toBe(false);
    await t.clock.advanceBy(1);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(t.sim.requestLog.entries()[0]?.fault).toBe('latency:3000');
  });

  it('sends a 200 whose body is not JSON for a malformed fault', async () => {
    t = await startTestSim({ faults: [{ from: '0s', to: '1m', match: '/v2/billing', kind: 'malformed' }] });
    const res = await t.call('/v2/billing/pods');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect((await t.call('/v2/pods')).status).toBe(200);
  });

  it('drops the connection without a response for a reset fault', async () => {
    t = await startTestSim({ faults: [{ from: '0s', to: '1m', match: '/v2/', kind: 'reset' }] });
    await expect(t.call('/v2/pods')).rejects.toThrow(TypeError);
    expect(t.sim.requestLog.entries()[0]).toMatchObject({ path: '/v2/pods', status: null, fault: 'reset' });
    expect(t.sim.requestLog.counts().resets).toBe(1);
    await t.clock.advanceBy(60_000);
    expect((await t.call('/v2/pods')).status).toBe(200);
  });

  it('retires GraphQL with a 410 while REST goes on', async () => {
    t = await startTestSim({ faults: [{ from: '0s', to: '30d', match: '/graphql', kind: 'status', status: 410 }] });
    const res = await t.graphql('{ myself { pods { id } } }');
    expect(res.status).toBe(410);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/GraphQL API has been retired/);
    expect((await t.call('/v2/pods')).status).toBe(200);
  });
});
