import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { version } from '../../src/package-root.js';
import { json, problem, type ScriptedServer, startScriptedServer, text } from '../helpers/scripted-server.js';
import { documentExample } from './document.js';
import { drive, makeClient, rejectionOf, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = makeClient(server.url);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const pod = () => documentExample('get', '/v2/pods/{id}');
const run = <T>(work: Promise<T>) => drive(client.clock, work);

describe('requests', () => {
  it('sends the key only as a bearer token, with our User-Agent', async () => {
    server.enqueue(json(200, pod()));
    await run(client.rest.getPod('pod 1/2'));
    const [request] = server.requests;
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/v2/pods/pod%201%2F2');
    expect(request?.headers.authorization).toBe('Bearer rpa_test_key_0000');
    expect(request?.headers['user-agent']).toBe(`podwarden/${version}`);
    expect(request?.url).not.toContain('rpa_test_key_0000');
  });

  it('uses the v2 route and parameter names of the document', async () => {
    server.setFallback(json(400, {}));
    const calls: Array<[() => Promise<unknown>, string]> = [
      [() => client.rest.listPods({ includeClusterPods: true }), '/v2/pods?includeClusterPods=true'],
      [() => client.rest.listEndpointWorkers('ep-1'), '/v2/serverless/ep-1/workers'],
      [() => client.rest.listNetworkVolumes(), '/v2/network-volumes'],
      [
        () => client.rest.listGpuTypes({ products: ['POD', 'CLUSTER'], count: 2, cloud: 'COMMUNITY' }),
        '/v2/catalog/gpus?include=AVAILABILITY&product=POD,CLUSTER&count=2&cloud=COMMUNITY',
      ],
      [() => client.rest.listGpuTypes({ includeAvailability: false }), '/v2/catalog/gpus'],
      [() => client.rest.listCpuTypes({ products: ['POD'] }), '/v2/catalog/cpus?include=AVAILABILITY&product=POD'],
      [
        () => client.rest.listDataCenters({ includeGpuAvailability: true, includeCpuAvailability: true }),
        '/v2/catalog/datacenters?include=GPU_AVAILABILITY,CPU_AVAILABILITY',
      ],
      [
        () => client.rest.billingNetworkVolumes({ lastN: 3, bucketSize: 'hour', networkVolumeId: 'vol-1' }),
        '/v2/billing/network-volumes?bucketSize=hour&lastN=3&networkVolumeId=vol-1',
      ],
      [
        () =>
          client.rest.billingPods({ startTime: '2026-06-01T00:00:00Z', endTime: '2026-06-02T00:00:00Z', podId: 'p' }),
        '/v2/billing/pods?startTime=2026-06-01T00%3A00%3A00Z&endTime=2026-06-02T00%3A00%3A00Z&podId=p',
      ],
      [() => client.rest.billingServerless({ serverlessId: 'ep-1' }), '/v2/billing/serverless?serverlessId=ep-1'],
      [() => client.rest.billingClusters({ clusterId: 'c-1' }), '/v2/billing/clusters?clusterId=c-1'],
    ];
    for (const [call, expected] of calls) {
      const retries = server.requests.length;
      await rejectionOf(run(call()));
      expect(server.requests[retries]?.url).toBe(expected);
    }
  });

  it('refuses lastN together with a time range before sending anything', async () => {
    const error = await rejectionOf(run(client.rest.billing({ lastN: 2, startTime: '2026-06-01T00:00:00Z' })));
    expect((error as ApiError).kind).toBe('client');
    expect(error.message).toBe('GET /billing: lastN cannot be combined with startTime/endTime');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses availability without a product before sending anything', async () => {
    const error = await rejectionOf(run(client.rest.listGpuTypes({ products: [] })));
    expect(error.message).toBe('GET /catalog/gpus: include=AVAILABILITY needs at least one product');
    expect(server.requests).toHaveLength(0);
  });
});

describe('responses', () => {
  it('returns the Pod from a 200 action and null from a 204 terminate', async () => {
    server.enqueue(json(200, pod()), { kind: 'reply', status: 204 });
    expect((await run(client.rest.podAction('pod-1', 'stop')))?.status).toBe('RUNNING');
    expect(await run(client.rest.podAction('pod-1', 'terminate'))).toBeNull();
    expect(server.requests.map((request) => JSON.parse(request.body))).toEqual([
      { action: 'stop' },
      { action: 'terminate' },
    ]);
  });

  it('accepts unknown fields and normalises runtime', async () => {
    const withExtras = { ...pod(), someNewField: { nested: true }, runtime: { uptime: 60, novel: 1 } };
    const stopped = { ...pod(), id: 'p2', status: 'EXITED', cost: 0, runtime: null };
    server.enqueue(json(200, { pods: [withExtras, stopped], nextCursor: 'x' }));
    const [running, exited] = (await run(client.rest.listPods())).items;
    expect(running?.someNewField).toEqual({ nested: true });
    expect(running?.runtime).toEqual({ uptime: 60, gpus: null, cpu: null, memory: null, ports: [] });
    expect(exited?.runtime).toBeNull();
  });

  it('sets aside a Pod that does not parse, naming its index, id and field path, and keeps the rest', async () => {
    const pods = [pod(), { ...pod(), id: 'p2' }, { ...pod(), id: 'p3' }, { ...pod(), id: 'p4', cost: '0.44' }];
    server.enqueue(json(200, { pods }));
    const listed = await run(client.rest.listPods());
    expect(listed.items.map((item) => item.id)).toEqual([pod().id, 'p2', 'p3']);
    expect(listed.rejected).toMatchObject([
      { index: 3, id: 'p4', reason: 'response body pods[3].cost: expected number, received string' },
    ]);
  });

  it('reports a missing field and a value outside an enum, item by item', async () => {
    const { name: _dropped, ...nameless } = pod();
    server.enqueue(json(200, { pods: [nameless, { ...pod(), status: 'SLEEPING' }] }));
    const listed = await run(client.rest.listPods());
    expect(listed.items).toEqual([]);
    expect(listed.rejected.map((item) => item.reason)).toEqual([
      'response body pods[0].name: missing, expected string',
      'response body pods[1].status: expected one of "PROVISIONING"|"STARTING"|"RUNNING"|"EXITED"|"ERROR"|"TERMINATED", received "SLEEPING"',
    ]);
  });

  it('sets aside a bad worker and a bad cluster Pod the same way: every list keeps its good items', async () => {
    const workers = documentExample('get', '/v2/serverless/{id}/workers') as {
      workers: Array<Record<string, unknown>>;
      summary: unknown;
    };
    const [worker] = workers.workers;
    server.enqueue(json(200, { ...workers, workers: [worker, { ...worker, id: 'w2', gpuCount: 'two' }] }));
    const answer = await run(client.rest.listEndpointWorkers('ep-1'));
    expect(answer.summary).toEqual(workers.summary);
    expect(answer.workers.items.map((item) => item.id)).toEqual([worker?.id]);
    expect(answer.workers.rejected).toMatchObject([
      { index: 1, id: 'w2', reason: 'response body workers[1].gpuCount: expected number, received string' },
    ]);

    // An answer without endpointVersion says null, explicitly.
    const { endpointVersion: _absent, ...versionless } = workers as Record<string, unknown>;
    server.enqueue(json(200, versionless));
    expect((await run(client.rest.listEndpointWorkers('ep-1'))).endpointVersion).toBeNull();

    server.enqueue(json(200, { pods: [pod(), { ...pod(), id: 'p2', cost: '0.44' }] }));
    const members = await run(client.rest.listClusterPods('c1'));
    expect(members.items.map((item) => item.id)).toEqual([pod().id]);
    expect(members.rejected).toMatchObject([{ index: 1, id: 'p2' }]);
  });

  it('still fails the whole list when the envelope itself is wrong', async () => {
    server.enqueue(json(200, { pods: { id: 'p1' } }));
    const error = await rejectionOf(run(client.rest.listPods()));
    expect((error as ApiError).kind).toBe('contract');
    expect(error.message).toBe('GET /pods: response body pods: expected array, received object');
  });

  it('turns malformed JSON into a contract error naming the route', async () => {
    server.enqueue(text(200, '{"pods": [', { 'content-type': 'application/json' }));
    const error = await rejectionOf(run(client.rest.listPods({ includeClusterPods: true })));
    expect((error as ApiError).kind).toBe('contract');
    expect(error.message).toMatch(/^GET \/pods: response body is not valid JSON \(/);
    expect((error as ApiError).bodySnippet).toBe('{"pods": [');
  });

  it('turns problem+json into typed error fields', async () => {
    const errors = ["$: additional properties 'bogus' not allowed", 'action: required'];
    server.enqueue(problem(422, 'Unprocessable Entity', 'Request validation failed.', { errors }));
    const error = (await rejectionOf(run(client.rest.podAction('pod-1', 'start')))) as ApiError;
    expect(error).toMatchObject({
      kind: 'client',
      status: 422,
      title: 'Unprocessable Entity',
      detail: 'Request validation failed.',
      errors,
    });
    expect(error.message).toBe(
      'POST /pods/{id}/action (pod-1, start): 422 Unprocessable Entity: Request validation failed. ' +
        "($: additional properties 'bogus' not allowed; action: required)",
    );
  });

  it.each([
    [401, 'auth'],
    [403, 'auth'],
    [404, 'not_found'],
    [409, 'conflict'],
    [400, 'client'],
  ])('classifies HTTP %i as %s', async (status, kind) => {
    server.enqueue(problem(status, 'Title', 'detail'));
    const error = (await rejectionOf(run(client.rest.getCluster('c-1')))) as ApiError;
    expect(error.kind).toBe(kind);
    expect(error.status).toBe(status);
  });

  it('keeps a truncated snippet of a body that is not a problem', async () => {
    server.enqueue(text(400, `<html>${'x'.repeat(2000)}</html>`));
    const error = (await rejectionOf(run(client.rest.listClusters()))) as ApiError;
    expect(error.bodySnippet).toHaveLength(501);
    // An HTML error page is named as such, with the URL that served it, instead of its markup.
    expect(error.message).toBe(
      `GET /clusters: 400 from ${server.url}/v2/clusters: an HTML page (text/plain), not JSON`,
    );
  });
});
