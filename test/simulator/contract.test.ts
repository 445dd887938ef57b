import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { VirtualClock } from '../../src/clock.js';
import { packagePath } from '../../src/package-root.js';
import type { V2Pod } from '../../src/simulator/pod-view.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';
import { type PrismHandle, startPrism } from '../helpers/prism.js';

/**
 * The simulator behind Prism in proxy mode with RunPod's v2 document. `strict` runs with
 * `--errors`: Prism validates the request and the simulator's response, and would answer a
 * response violation itself (500, problem type …#VIOLATIONS) with the violations in an
 * `sl-violations` header. So for every route we assert: the simulator served the request once
 * (its request log shows the status we got), and no `sl-violations` header came back.
 *
 * A request that breaks the document (no bearer, a body or parameter the schema rejects) never
 * reaches the upstream under `--errors`: Prism answers it itself. Those go through `lenient`
 * (no `--errors`), which forwards them and still validates the response, listing violations in
 * `sl-violations`; we assert none of them is located in the response.
 */

const HOUR = 3_600_000;
const KEY = 'sim-key';
const READ_ONLY_KEY = 'sim-ro';
const MINUTE_QUOTA = 300;

let sim: Simulator;
let clock: VirtualClock;
let strict: PrismHandle;
let lenient: PrismHandle;

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

interface Through {
  status: number;
  headers: Headers;
  text: string;
  violations: Violation[];
  /** Statuses the simulator logged for this request: exactly one when Prism forwarded it. */
  served: Array<number | null>;
}

async function through(
  prism: PrismHandle,
  path: string,
  init: { method?: string; body?: unknown; key?: string | null } = {},
): Promise<Through> {
  const before = sim.requestLog.lastSeq();
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? KEY : init.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${prism.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  const header = res.headers.get('sl-violations');
  return {
    status: res.status,
    headers: res.headers,
    text,
    violations: header ? (JSON.parse(header) as Violation[]) : [],
    served: sim.requestLog.entries(before).map((entry) => entry.status),
  };
}

/** Through strict Prism: served by the simulator with `status`, and no violation at all. */
async function conforms(path: string, status: number, init: Parameters<typeof through>[2] = {}): Promise<Through> {
  const result = await through(strict, path, init);
  const context = `${init.method ?? 'GET'} ${path}: ${result.text.slice(0, 600)}`;
  expect(result.violations, context).toEqual([]);
  expect(result.served, context).toEqual([result.status]);
  expect(result.status, context).toBe(status);
  return result;
}

/** Through lenient Prism, for requests the document refuses: the response still conforms. */
async function respondsConformingly(path: string, status: number, init: Parameters<typeof through>[2] = {}) {
  const result = await through(lenient, path, init);
  const context = `${init.method ?? 'GET'} ${path}: ${result.text.slice(0, 600)}`;
  expect(result.served, context).toEqual([status]);
  expect(result.status, context).toBe(status);
  expect(
    result.violations.filter((v) => v.location[0] === 'response'),
    context,
  ).toEqual([]);
  return result;
}

async function direct<T>(path: string, key = KEY): Promise<T> {
  const res = await fetch(`${sim.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  const raw = parseYaml(readFileSync(packagePath('config/scenarios/small-team.yaml'), 'utf8')) as Record<
    string,
    unknown
  >;
  const scenario = parseScenario(
    { ...raw, faults: [], rateLimit: { minute: MINUTE_QUOTA, hour: 20_000, day: 200_000 } },
    'small-team (contract test)',
  );
  // Mid-morning: Pods in every state, endpoint workers busy, hours of billing behind us.
  clock = new VirtualClock(scenario.startMs + 10 * HOUR + 30 * 60_000);
  sim = await startSimulator({ scenario, clock });
  [strict, lenient] = await Promise.all([
    startPrism({ mode: 'proxy', upstream: sim.url }),
    startPrism({ mode: 'proxy', upstream: sim.url, errors: false }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([strict?.stop(), lenient?.stop()]);
  await sim?.close();
});

describe('simulator against the v2 document (prism proxy --errors)', () => {
  it('answers every Pod, cluster, serverless and volume GET conformingly', async () => {
    const { pods } = await direct<{ pods: V2Pod[] }>('/v2/pods?includeClusterPods=true');
    expect(new Set(pods.map((pod) => pod.status)).size).toBeGreaterThan(2);
    await conforms('/v2/pods', 200);
    await conforms('/v2/pods?includeClusterPods=true', 200);
    await conforms('/v2/pods?includeClusterPods=false', 200);
    for (const pod of pods) await conforms(`/v2/pods/${encodeURIComponent(pod.id)}`, 200);
    const { clusters } = await direct<{ clusters: Array<{ id: string }> }>('/v2/clusters');
    expect(clusters.length).toBeGreaterThan(0);
    await conforms('/v2/clusters', 200);
    for (const { id } of clusters) {
      await conforms(`/v2/clusters/${id}`, 200);
      await conforms(`/v2/clusters/${id}/pods`, 200);
    }
    const { endpoints } = await direct<{ endpoints: Array<{ id: string }> }>('/v2/serverless');
    expect(endpoints.length).toBeGreaterThan(0);
    await conforms('/v2/serverless', 200);
    for (const { id } of endpoints) {
      await conforms(`/v2/serverless/${id}`, 200);
      await conforms(`/v2/serverless/${id}/workers`, 200);
      await conforms(`/v2/serverless/${id}/releases`, 200);
    }
    const { networkVolumes } = await direct<{ networkVolumes: Array<{ id: string }> }>('/v2/network-volumes');
    expect(networkVolumes.length).toBeGreaterThan(0);
    await conforms('/v2/network-volumes', 200);
    for (const { id } of networkVolumes) await conforms(`/v2/network-volumes/${id}`, 200);
    await conforms('/v2/templates', 200);
    await conforms('/v2/registries', 200);
    await conforms('/v2/account/ssh-keys', 200);
  });

  it('answers every catalog GET conformingly, with and without availability', async () => {
    const { gpus } = await direct<{ gpus: Array<{ id: string }> }>('/v2/catalog/gpus');
    await conforms('/v2/catalog/gpus', 200);
    await conforms('/v2/catalog/gpus?include=AVAILABILITY&product=POD', 200);
    await conforms('/v2/catalog/gpus?include=AVAILABILITY&product=SERVERLESS&cloud=SECURE&count=2', 200);
    for (const { id } of gpus) {
      await conforms(`/v2/catalog/gpus/${encodeURIComponent(id)}`, 200);
      await conforms(`/v2/catalog/gpus/${encodeURIComponent(id)}?include=AVAILABILITY&product=POD`, 200);
    }
    const { cpus } = await direct<{ cpus: Array<{ id: string }> }>('/v2/catalog/cpus');
    await conforms('/v2/catalog/cpus', 200);
    for (const { id } of cpus) await conforms(`/v2/catalog/cpus/${encodeURIComponent(id)}`, 200);
    const { dataCenters } = await direct<{ dataCenters: Array<{ id: string }> }>('/v2/catalog/datacenters');
    await conforms('/v2/catalog/datacenters', 200);
    await conforms('/v2/catalog/datacenters?include=GPU_AVAILABILITY', 200);
    for (const { id } of dataCenters) await conforms(`/v2/catalog/datacenters/${id}?include=GPU_AVAILABILITY`, 200);
    await conforms('/v2/catalog/templates', 200);
  });

  it('answers all six billing routes conformingly, across bucket sizes and filters', async () => {
    const routes = ['/v2/billing', '/v2/billing/pods', '/v2/billing/serverless', '/v2/billing/endpoints'];
    routes.push('/v2/billing/network-volumes', '/v2/billing/clusters');
    const window = 'startTime=2026-11-02T00:00:00Z&endTime=2026-11-02T10:00:00Z';
    for (const route of routes) {
      await conforms(route, 200);
      await conforms(`${route}?bucketSize=hour&${window}`, 200);
      await conforms(`${route}?bucketSize=week&lastN=2`, 200);
    }
    await conforms('/v2/billing/pods?podId=train-llama-70b&bucketSize=hour&lastN=3', 200);
    await conforms('/v2/billing/serverless?serverlessId=ep-sdxl&bucketSize=day', 200);
    await conforms('/v2/billing/network-volumes?networkVolumeId=vol-datasets', 200);
    await conforms('/v2/billing/clusters?clusterId=cl-pretrain&bucketSize=hour&lastN=2', 200);
  });

  it('answers Pod actions and deletion conformingly, through every transition', async () => {
    const { pods } = await direct<{ pods: V2Pod[] }>('/v2/pods');
    const running = pods.filter((pod) => pod.status === 'RUNNING');
    const [first, second] = running;
    if (!first || !second) throw new Error('small-team should have two RUNNING standalone Pods at 10:30');
    const stopped = await conforms(`/v2/pods/${first.id}/action`, 200, { method: 'POST', body: { action: 'stop' } });
    expect((JSON.parse(stopped.text) as V2Pod).status).toBe('EXITED');
    const started = await conforms(`/v2/pods/${first.id}/action`, 200, { method: 'POST', body: { action: 'start' } });
    expect((JSON.parse(started.text) as V2Pod).status).not.toBe('EXITED');
    await clock.advanceBy(5 * 60_000);
    const restarted = await conforms(`/v2/pods/${first.id}/action`, 200, {
      method: 'POST',
      body: { action: 'restart' },
    });
    expect((JSON.parse(restarted.text) as V2Pod).actions).toContain('stop');
    await conforms(`/v2/pods/${first.id}/action`, 204, { method: 'POST', body: { action: 'terminate' } });
    await conforms(`/v2/pods/${second.id}`, 204, { method: 'DELETE' });
    await conforms(`/v2/pods/${second.id}`, 404);
  });

  it('answers 401, 403, 400, 404 and 409 conformingly', async () => {
    const unknownKey = await conforms('/v2/pods', 401, { key: 'not-a-key' });
    expect(unknownKey.headers.get('content-type')).toBe('application/problem+json');
    const { pods } = await direct<{ pods: V2Pod[] }>('/v2/pods');
    const exited = pods.find((pod) => pod.status === 'EXITED');
    const running = pods.find((pod) => pod.status === 'RUNNING');
    if (!exited || !running) throw new Error('small-team should have an EXITED and a RUNNING Pod');
    await conforms(`/v2/pods/${running.id}/action`, 403, {
      method: 'POST',
      body: { action: 'stop' },
      key: READ_ONLY_KEY,
    });
    await conforms(`/v2/pods/${running.id}`, 403, { method: 'DELETE', key: READ_ONLY_KEY });
    await conforms('/v2/catalog/gpus?include=AVAILABILITY', 400);
    await conforms('/v2/catalog/gpus?product=POD', 400);
    await conforms('/v2/pods/no-such-pod', 404);
    await conforms('/v2/pods/no-such-pod/action', 404, { method: 'POST', body: { action: 'stop' } });
    await conforms('/v2/pods/no-such-pod', 404, { method: 'DELETE' });
    await conforms('/v2/clusters/no-such-cluster', 404);
    await conforms('/v2/clusters/no-such-cluster/pods', 404);
    await conforms('/v2/serverless/no-such-endpoint', 404);
    await conforms('/v2/serverless/no-such-endpoint/workers', 404);
    await conforms('/v2/network-volumes/no-such-volume', 404);
    await conforms('/v2/catalog/gpus/NVIDIA%20Z9000', 404);
    await conforms('/v2/catalog/datacenters/XX-NONE-1', 404);
    await conforms(`/v2/pods/${exited.id}/action`, 409, { method: 'POST', body: { action: 'stop' } });
    await conforms('/v2/pods/cl-pretrain-0', 409, { method: 'DELETE' });
  });

  it('answers 401 without a bearer, 405 and 422 conformingly (requests the document refuses)', async () => {
    const missing = await respondsConformingly('/v2/pods', 401, { key: null });
    expect(JSON.parse(missing.text)).toEqual({ title: 'Unauthorized', status: 401, detail: 'missing bearer token' });
    const { pods } = await direct<{ pods: V2Pod[] }>('/v2/pods');
    const id = pods[0]?.id as string;
    const extra = await respondsConformingly(`/v2/pods/${id}/action`, 422, {
      method: 'POST',
      body: { action: 'stop', bogus: 1 },
    });
    expect((JSON.parse(extra.text) as { errors: string[] }).errors).toContain(
      "$: additional properties 'bogus' not allowed",
    );
    await respondsConformingly(`/v2/pods/${id}/action`, 422, { method: 'POST', body: { action: 'explode' } });
    await respondsConformingly('/v2/billing/pods?bucketSize=fortnight', 422);
    await respondsConformingly('/v2/billing/pods?lastN=0', 422);
    // The document has no operation for these methods, so Prism validates nothing; the
    // simulator's 405 carries its Allow header and the document's ErrorResponse body.
    const put = await respondsConformingly('/v2/pods', 405, { method: 'PUT', body: {} });
    expect(put.headers.get('allow')).toBe('GET, POST');
    expect(JSON.parse(put.text)).toEqual({
      title: 'Method Not Allowed',
      status: 405,
      detail: 'The requested method is not allowed for this path.',
    });
  });

  it('answers 429 conformingly once the minute window is spent', async () => {
    // Spend what is left of this minute's quota directly, then ask through Prism.
    await clock.advanceBy(60_000);
    for (let i = 0; i < MINUTE_QUOTA; i++) {
      const res = await fetch(`${sim.url}/v2/templates`, { headers: { Authorization: `Bearer ${KEY}` } });
      await res.body?.cancel();
    }
    const limited = await conforms('/v2/pods', 429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.headers.get('ratelimit')).toMatch(/^"minute";r=0;t=\d+, "hour";r=\d+;t=\d+, "day";r=\d+;t=\d+$/);
    expect(JSON.parse(limited.text)).toEqual({
      title: 'Too Many Requests',
      status: 429,
      detail: 'rate limit exceeded for the minute window',
    });
  });
});
