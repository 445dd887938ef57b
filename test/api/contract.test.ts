import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { RestClient } from '../../src/api/rest.js';
import { type PrismHandle, startPrism } from '../helpers/prism.js';
import { startRecordingProxy } from './recording-proxy.js';
import { drive, makeClient, type TestClient } from './support.js';

/**
 * Every RestClient method against `prism mock --errors` serving the official v2 document:
 * Prism rejects any request that violates the document (422/400/401 with `sl-violations`),
 * and answers valid ones with the document's examples, which must parse with our schemas.
 * GraphQL is not in the document, so GraphqlClient is covered by graphql.test.ts only.
 */

let prism: PrismHandle;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let client: TestClient;

beforeAll(async () => {
  prism = await startPrism({ mode: 'mock' });
  proxy = await startRecordingProxy(prism.url);
  client = makeClient(proxy.url, { retries: { max: 0, baseDelayMs: 1, maxDelayMs: 1 } });
});

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await prism?.stop();
});

const range = { startTime: '2026-06-01T00:00:00Z', endTime: '2026-06-08T00:00:00Z' };

/** [method, call, what to expect]. */
const calls: Array<[string, (rest: RestClient) => Promise<unknown>, ('ok' | 'serverless-example-defect')?]> = [
  ['listPods', (rest) => rest.listPods({ includeClusterPods: true })],
  ['listPods', (rest) => rest.listPods()],
  ['getPod', (rest) => rest.getPod('7h9k2m4n6p')],
  ['podAction', (rest) => rest.podAction('7h9k2m4n6p', 'stop')],
  ['podAction', (rest) => rest.podAction('7h9k2m4n6p', 'restart')],
  ['listClusters', (rest) => rest.listClusters()],
  ['getCluster', (rest) => rest.getCluster('cluster_abc123')],
  ['listClusterPods', (rest) => rest.listClusterPods('cluster_abc123')],
  ['listEndpoints', (rest) => rest.listEndpoints(), 'serverless-example-defect'],
  ['getEndpoint', (rest) => rest.getEndpoint('4m7x2k9q')],
  ['listEndpointWorkers', (rest) => rest.listEndpointWorkers('4m7x2k9q')],
  ['listNetworkVolumes', (rest) => rest.listNetworkVolumes()],
  [
    'listGpuTypes',
    (rest) => rest.listGpuTypes({ products: ['POD', 'CLUSTER', 'SERVERLESS'], count: 2, cloud: 'SECURE' }),
  ],
  ['listGpuTypes', (rest) => rest.listGpuTypes({ includeAvailability: false })],
  ['getGpuType', (rest) => rest.getGpuType('NVIDIA GeForce RTX 4090', { products: ['POD'], cloud: 'COMMUNITY' })],
  ['listCpuTypes', (rest) => rest.listCpuTypes({ products: ['POD', 'SERVERLESS'], vcpuCount: 4 })],
  ['listCpuTypes', (rest) => rest.listCpuTypes({ includeAvailability: false })],
  ['listDataCenters', (rest) => rest.listDataCenters({ includeGpuAvailability: true, includeCpuAvailability: true })],
  ['listDataCenters', (rest) => rest.listDataCenters()],
  ['billing', (rest) => rest.billing({ lastN: 7, bucketSize: 'day' })],
  ['billing', (rest) => rest.billing({ ...range, bucketSize: 'hour' })],
  ['billingPods', (rest) => rest.billingPods({ ...range, podId: '7h9k2m4n6p' })],
  ['billingServerless', (rest) => rest.billingServerless({ lastN: 2, bucketSize: 'week', serverlessId: '4m7x2k9q' })],
  ['billingEndpoints', (rest) => rest.billingEndpoints({ lastN: 1, bucketSize: 'month' })],
  ['billingNetworkVolumes', (rest) => rest.billingNetworkVolumes({ ...range, networkVolumeId: '2q9m7x4c' })],
  ['billingClusters', (rest) => rest.billingClusters({ lastN: 1, bucketSize: 'year', clusterId: '5c2n8m4q' })],
];

async function exchange(call: () => Promise<unknown>) {
  const before = proxy.exchanges.length;
  // Prism answers with the document's example RateLimit header (`"minute";r=0;t=12`), so the
  // client paces on its virtual clock between calls.
  const outcome = await drive(client.clock, call()).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const recorded = proxy.exchanges.slice(before);
  expect(recorded, 'exactly one HTTP exchange per call').toHaveLength(1);
  const [only] = recorded;
  if (!only) throw new Error('no exchange recorded');
  const requestViolations = only.violations.filter((violation) => violation.location[0] === 'request');
  return { outcome, exchange: only, requestViolations };
}

describe('contract: the client against prism mock --errors', () => {
  it('calls every public RestClient method below', () => {
    const methods = Object.getOwnPropertyNames(RestClient.prototype).filter(
      (name) => !['constructor', 'get', 'list', 'read', 'billingRoute'].includes(name),
    );
    expect(new Set(calls.map(([name]) => name))).toEqual(new Set(methods));
  });

  it.each(calls)('%s: request valid, example parses', async (_name, call, expected = 'ok') => {
    const { outcome, exchange: seen, requestViolations } = await exchange(() => call(client.rest));
    expect(requestViolations, `${seen.method} ${seen.url}`).toEqual([]);
    if (expected === 'ok') {
      if (!outcome.ok) throw outcome.error;
      expect(seen.status).toBeLessThan(300);
      // A list parsed item by item must not set the document's own example aside.
      const rejected = (outcome.value as { rejected?: unknown[] } | null)?.rejected;
      expect(rejected ?? []).toEqual([]);
      return;
    }
    // The document's GET /v2/serverless example has queue URLs with `{job_id}` templates, which
    // fail its own `format: uri`, so the oneOf of request URL shapes matches neither. Prism
    // --errors validates its mock answer and returns 500. Our request is valid; the example
    // itself parses with our schema (schemas.test.ts). Remove this case once the document is fixed.
    expect(seen.status).toBe(500);
    expect(seen.violations.length).toBeGreaterThan(0);
    const where = seen.violations.map((violation) => violation.location.join('.'));
    expect(
      where.every((path) => path.startsWith('response.body.endpoints.0.requestUrls')),
      where.join(', '),
    ).toBe(true);
    expect(outcome.ok ? undefined : (outcome.error as ApiError).status).toBe(500);
  });

  it('podAction terminate: the 204 answer gives null', async () => {
    proxy.preferNext('code=204');
    const {
      outcome,
      exchange: seen,
      requestViolations,
    } = await exchange(() => client.rest.podAction('7h9k2m4n6p', 'terminate'));
    expect(requestViolations).toEqual([]);
    expect(seen.status).toBe(204);
    expect(outcome).toEqual({ ok: true, value: null });
  });

  it('the harness notices a request that violates the document (control)', async () => {
    const response = await fetch(`${proxy.url}/v2/billing/pods?lastN=0`, {
      headers: { authorization: 'Bearer control' },
    });
    await response.text();
    const last = proxy.exchanges.at(-1);
    expect(response.status).toBe(422);
    expect(last?.violations.map((violation) => violation.location.join('.'))).toEqual(['request.query.lastn']);
  });

  it('the harness notices a missing bearer token and a v1-era path (control)', async () => {
    const unauthenticated = await fetch(`${proxy.url}/v2/pods`);
    await unauthenticated.text();
    expect(unauthenticated.status).toBe(401);
    const oldPath = await fetch(`${proxy.url}/v2/billing/networkvolumes`, { headers: { authorization: 'Bearer x' } });
    await oldPath.text();
    expect(oldPath.status).toBe(404);
  });
});
