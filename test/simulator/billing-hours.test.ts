import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';
import { encodeReply } from '../../src/simulator/reply.js';
import { BILLING_ROUTES, billingReply } from '../../src/simulator/rest-billing.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { World } from '../../src/simulator/world.js';
import { DAY, HOUR, iso, MINUTE, request, START_MS } from './world-fixtures.js';

/**
 * Hourly billing replies are assembled from hours encoded once (src/simulator/billing-hours.ts).
 * They must be, byte for byte, what generating the whole reply at once gives, however the world
 * moved in between: Pods stopped, started and restarted mid-hour, hours sealed while cached.
 */

const smallTeam = () => new World(loadScenario(packagePath('config/scenarios/small-team.yaml')));

function queries(t: number): string[] {
  return [
    `bucketSize=hour&startTime=${iso(t - 49 * HOUR)}&endTime=${iso(t)}`,
    'bucketSize=hour',
    'bucketSize=hour&lastN=5',
    `bucketSize=hour&startTime=${encodeURIComponent(iso(t - 3 * DAY - 17 * MINUTE))}&endTime=${iso(t + 2 * HOUR)}`,
    `bucketSize=hour&startTime=${iso(t - 2 * HOUR)}&endTime=${iso(t - HOUR)}`,
  ];
}

/** The reply as the server would send it, and the reference generated in one go. */
function both(world: World, path: string, query: string, t: number) {
  const route = BILLING_ROUTES[path] as (typeof BILLING_ROUTES)[string];
  const params = () => new URLSearchParams(query);
  const sent = encodeReply(billingReply(world, route, params(), t));
  const reference = encodeReply(billingReply(world, route, params(), t, false));
  return { sent, reference };
}

describe('billing replies from encoded hours', () => {
  it('send the bytes the whole reply generated at once would, while the world moves', () => {
    const world = smallTeam();
    const pods = world.podsView(START_MS, { includeClusterPods: false });
    const running = pods.filter((pod) => pod.status === 'RUNNING').map((pod) => pod.id);
    const stopped = pods.filter((pod) => pod.status === 'EXITED').map((pod) => pod.id);
    expect(running.length).toBeGreaterThan(2);
    expect(stopped.length).toBeGreaterThan(0);
    const actions: Array<[string, string]> = [
      [running[0] as string, 'stop'],
      [stopped[0] as string, 'start'],
      [running[1] as string, 'restart'],
      [running[0] as string, 'start'],
      [running[2] as string, 'terminate'],
    ];
    let compared = 0;
    let records = 0;
    // Steps that fall mid-hour and on the hour, over more than the 72 h the cache keeps.
    for (let step = 0, t = START_MS + 7 * MINUTE; t < START_MS + 80 * HOUR; step++, t += 53 * MINUTE + 11_000) {
      const action = actions[step % 9];
      if (action) request(world, 'POST', `/v2/pods/${action[0]}/action`, t, { action: action[1] });
      for (const path of Object.keys(BILLING_ROUTES)) {
        for (const query of step % 10 === 0 ? queries(t) : queries(t).slice(0, 1)) {
          const { sent, reference } = both(world, path, query, t);
          expect(sent.status, `${path}?${query}`).toBe(200);
          expect(sent.payload, `${path}?${query} at ${iso(t)}`).toBe(reference.payload);
          expect(sent.headers).toEqual(reference.headers);
          records += JSON.parse(sent.payload as string).records.length;
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(600);
    expect(records).toBeGreaterThan(10_000);
  });

  it('generate only the hours still open at the last reading when the daemon re-reads its trailing 48 h every 15 minutes', () => {
    const world = smallTeam();
    // The world's own usage readings are what generating hours calls; what they are asked for is recorded.
    const asked: Array<{ kind: string; startMs: number; endMs: number }> = [];
    const usage = world.usage.bind(world);
    world.usage = (nowMs, kind, window, size, options) => {
      asked.push({ kind, startMs: window.startMs, endMs: window.endMs });
      return usage(nowMs, kind, window, size, options);
    };
    const usageByHour = world.usageByHour.bind(world);
    world.usageByHour = (nowMs, kind, window, wanted) => {
      asked.push({ kind, startMs: window.startMs, endMs: window.endMs });
      return usageByHour(nowMs, kind, window, wanted);
    };
    const totalsByHour = world.totalsByHour.bind(world);
    world.totalsByHour = (nowMs, kind, window) => {
      asked.push({ kind, startMs: window.startMs, endMs: window.endMs });
      return totalsByHour(nowMs, kind, window);
    };
    const trailing = (t: number) => {
      const end = Math.floor(t / HOUR) * HOUR + HOUR;
      return `bucketSize=hour&startTime=${iso(end - 48 * HOUR)}&endTime=${iso(end)}`;
    };
    let t = START_MS + 30 * HOUR;
    for (const path of Object.keys(BILLING_ROUTES)) both(world, path, trailing(t), t);
    // The first reading generates the 48 h; from then on, sealed hours come from the cache.
    expect(Math.min(...asked.map((call) => call.startMs))).toBeLessThanOrEqual(t - 47 * HOUR);
    for (let poll = 1; poll <= 12; poll++) {
      // Only an hour still open at the last reading may be generated again (once it has closed).
      const openBefore = Math.floor(t / HOUR) * HOUR;
      t += 15 * MINUTE;
      asked.length = 0;
      for (const path of Object.keys(BILLING_ROUTES)) {
        const route = BILLING_ROUTES[path] as (typeof BILLING_ROUTES)[string];
        billingReply(world, route, new URLSearchParams(trailing(t)), t);
      }
      expect(asked.length, `poll ${poll}`).toBeGreaterThan(0);
      for (const call of asked) expect(call.startMs, `${call.kind} at ${iso(t)}`).toBeGreaterThanOrEqual(openBefore);
    }
  });

  it('send the same bytes as a generated reply when the trailing 48 h are re-read every 15 minutes across actions', () => {
    const world = smallTeam();
    const pods = world.podsView(START_MS, { includeClusterPods: false });
    const running = pods.filter((pod) => pod.status === 'RUNNING').map((pod) => pod.id);
    expect(running.length).toBeGreaterThan(1);
    // The sums of the sealed hours a reading begins with are kept for the next reading of the
    // same window: readings within one hour share them, the next hour's do not.
    const trailing = (t: number) => {
      const end = Math.floor(t / HOUR) * HOUR + HOUR;
      return `bucketSize=hour&startTime=${iso(end - 48 * HOUR)}&endTime=${iso(end)}`;
    };
    let compared = 0;
    for (let poll = 0, t = START_MS + 50 * HOUR + 3 * MINUTE; poll < 12; poll++, t += 15 * MINUTE) {
      if (poll === 2) request(world, 'POST', `/v2/pods/${running[0]}/action`, t, { action: 'stop' });
      if (poll === 6) request(world, 'POST', `/v2/pods/${running[1]}/action`, t, { action: 'restart' });
      if (poll === 9) request(world, 'POST', `/v2/pods/${running[0]}/action`, t, { action: 'start' });
      for (const path of Object.keys(BILLING_ROUTES)) {
        const { sent, reference } = both(world, path, trailing(t), t);
        expect(sent.payload, `${path} at ${iso(t)}`).toBe(reference.payload);
        expect(sent.headers['Content-Length']).toBe(reference.headers['Content-Length']);
        compared++;
      }
    }
    expect(compared).toBe(72);
  });

  it('send records in id order when the world lists its resources in another order', () => {
    // Rows usually come in id order and skip the sort; a scenario listed backwards must not.
    const scenario = loadScenario(packagePath('config/scenarios/small-team.yaml'));
    const reversed = {
      ...scenario,
      pods: [...scenario.pods].reverse(),
      volumes: [...scenario.volumes].reverse(),
      endpoints: [...scenario.endpoints].reverse(),
    };
    const world = new World(reversed);
    const t = START_MS + 30 * HOUR + 5 * MINUTE;
    let multi = 0;
    for (const path of Object.keys(BILLING_ROUTES)) {
      const { sent, reference } = both(world, path, `bucketSize=hour&startTime=${iso(t - 100 * HOUR)}`, t);
      expect(sent.payload, path).toBe(reference.payload);
      const records = JSON.parse(sent.payload as string).records as Array<{ startTime: string }>;
      const perHour = new Map<string, number>();
      for (const record of records) perHour.set(record.startTime, (perHour.get(record.startTime) ?? 0) + 1);
      if (Math.max(0, ...perHour.values()) > 1) multi++;
    }
    // Routes with several resources in one hour, so their order was at stake.
    expect(multi).toBeGreaterThanOrEqual(2);
  });

  it('decode to the same body when a caller reads the reply as an object', () => {
    const world = smallTeam();
    const t = START_MS + 30 * HOUR + 5 * MINUTE;
    for (const path of Object.keys(BILLING_ROUTES)) {
      const route = BILLING_ROUTES[path] as (typeof BILLING_ROUTES)[string];
      const query = new URLSearchParams('bucketSize=hour');
      const reply = billingReply(world, route, query, t);
      expect(reply.json).toBeDefined();
      expect(reply.body).toEqual(billingReply(world, route, query, t, false).body);
    }
  });

  it('leave other bucket sizes, id filters and very long windows to the generated path', () => {
    const world = smallTeam();
    const t = START_MS + 30 * HOUR;
    const route = BILLING_ROUTES['/v2/billing/pods'] as (typeof BILLING_ROUTES)[string];
    for (const query of [
      'bucketSize=day',
      'bucketSize=hour&podId=nope',
      'bucketSize=hour&startTime=2020-01-01T00:00:00Z&endTime=2026-11-03T00:00:00Z',
    ]) {
      expect(billingReply(world, route, new URLSearchParams(query), t).json, query).toBeUndefined();
    }
  });
});
