import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, NoDataError } from '../../src/api/errors.js';
import { GRAPHQL_RETIREMENT_EARLIEST } from '../../src/api/graphql.js';
import { json, problem, type ScriptedServer, startScriptedServer, text } from '../helpers/scripted-server.js';
import { drive, makeClient, RecordingClock, rejectionOf, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await client?.close();
  await server.close();
});

const run = <T>(work: Promise<T>) => drive(client.clock, work);

/** The docs' example answer to the pods-with-utilisation query (api-notes §5.2). */
const podsAnswer = {
  data: {
    myself: {
      pods: [
        {
          id: 'ldl1dxirsim64n',
          name: 'Runpod Pytorch',
          runtime: {
            uptimeInSeconds: 3931,
            ports: [{ ip: '100.65.0.101', isIpPublic: false, privatePort: 8888, publicPort: 60141, type: 'http' }],
            gpus: [{ id: 'GPU-e0488b7e-6932-795b-a125-4472c16ea72c', gpuUtilPercent: 7, memoryUtilPercent: 3 }],
            container: { cpuPercent: 12, memoryPercent: 40 },
          },
        },
        { id: 'stopped1', name: 'idle', runtime: null },
      ],
    },
  },
};

describe('GraphqlClient', () => {
  it('reads Pods with runtime in the REST PodRuntime shape, with the key in the header', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, podsAnswer));
    const pods = await run(client.graphql.podsWithRuntime());
    expect(pods.rejected).toEqual([]);
    expect(pods.items.map((pod) => [pod.id, pod.runtime])).toEqual([
      [
        'ldl1dxirsim64n',
        {
          uptime: 3931,
          gpus: [{ util: 7, memoryUtil: 3 }],
          cpu: { util: 12 },
          memory: { util: 40 },
          ports: [],
        },
      ],
      ['stopped1', null],
    ]);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/graphql');
    expect(request?.headers.authorization).toBe('Bearer rpa_test_key_0000');
    expect(JSON.parse(request?.body ?? '').query).toContain('gpus { id gpuUtilPercent memoryUtilPercent }');
  });

  it('puts the key in the api_key query parameter when configured so, and not in a header', async () => {
    client = makeClient(server.url, { graphqlAuth: 'query' });
    server.enqueue(json(200, { data: { podStop: { id: 'p1', desiredStatus: 'EXITED' } } }));
    expect(await run(client.graphql.podStop('p1'))).toEqual({ id: 'p1', desiredStatus: 'EXITED' });
    const [request] = server.requests;
    expect(request?.query.get('api_key')).toBe('rpa_test_key_0000');
    expect(request?.headers.authorization).toBeUndefined();
    expect(JSON.parse(request?.body ?? '').variables).toEqual({ podId: 'p1' });
  });

  it('reads GPU stock of both clouds from lowestPrice in one request, tolerating null and missing parts', async () => {
    client = makeClient(server.url);
    const gpuTypes = [
      {
        id: 'NVIDIA RTX A4000',
        displayName: 'RTX A4000',
        memoryInGb: 16,
        secure: { stockStatus: 'High', uninterruptablePrice: 0.35, availableGpuCounts: [1, 2, 4] },
        community: { stockStatus: 'Low', uninterruptablePrice: 0.17, availableGpuCounts: [1] },
      },
      { id: 'unknown', displayName: null, memoryInGb: null, secure: null, community: null },
      { id: 'NVIDIA H100', displayName: 'H100', memoryInGb: 80, secure: { stockStatus: null } },
    ];
    server.enqueue(json(200, { data: { gpuTypes } }));
    const stock = await run(client.graphql.gpuTypesStock({ gpuCount: 2 }));
    expect(stock.rejected).toEqual([]);
    expect(stock.items.map((gpu) => [gpu.secure, gpu.community])).toEqual([
      [
        { stockStatus: 'High', uninterruptablePrice: 0.35, availableGpuCounts: [1, 2, 4] },
        { stockStatus: 'Low', uninterruptablePrice: 0.17, availableGpuCounts: [1] },
      ],
      [null, null],
      [{ stockStatus: null, uninterruptablePrice: null, availableGpuCounts: [] }, null],
    ]);
    expect(server.requests).toHaveLength(1);
    const body = JSON.parse(server.requests[0]?.body ?? '');
    expect(body.variables).toEqual({ gpuCount: 2 });
    expect(body.query).toContain('secure: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: true })');
    expect(body.query).toContain('community: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: false })');
  });

  it('keeps the GPU types it can read and names the one it cannot, as the REST lists do', async () => {
    client = makeClient(server.url);
    const gpuTypes = [
      { id: 'NVIDIA RTX A4000', secure: { stockStatus: 'High', availableGpuCounts: [1] }, community: null },
      { id: 'NVIDIA H100', secure: { stockStatus: 'Low', uninterruptablePrice: 'cheap' }, community: null },
      { id: 'NVIDIA A40', secure: null, community: { stockStatus: 'Medium', availableGpuCounts: [1, 2] } },
    ];
    server.enqueue(json(200, { data: { gpuTypes } }));
    const stock = await run(client.graphql.gpuTypesStock({ gpuCount: 1 }));
    expect(stock.items.map((gpu) => gpu.id)).toEqual(['NVIDIA RTX A4000', 'NVIDIA A40']);
    expect(stock.rejected).toEqual([
      {
        index: 1,
        id: 'NVIDIA H100',
        reason: 'response body data.gpuTypes[1].secure.uninterruptablePrice: expected number, received string',
        raw: gpuTypes[1],
      },
    ]);
  });

  it('keeps the Pods with runtime it can read and names the one it cannot', async () => {
    client = makeClient(server.url);
    const pods = [...podsAnswer.data.myself.pods, { id: 'bad1', name: 'bad', runtime: { uptimeInSeconds: 'long' } }];
    server.enqueue(json(200, { data: { myself: { pods } } }));
    const read = await run(client.graphql.podsWithRuntime());
    expect(read.items.map((pod) => pod.id)).toEqual(['ldl1dxirsim64n', 'stopped1']);
    expect(read.rejected).toMatchObject([
      {
        index: 2,
        id: 'bad1',
        reason: 'response body data.myself.pods[2].runtime.uptimeInSeconds: expected number, received string',
      },
    ]);
  });

  it('still fails the call when the list itself is not there, naming the path', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { data: { gpuTypes: null } }));
    const error = (await rejectionOf(run(client.graphql.gpuTypesStock({ gpuCount: 1 })))) as ApiError;
    expect(error).toMatchObject({ kind: 'contract' });
    expect(error.message).toContain('data.gpuTypes');
  });

  it('turns errors[] in a 200 answer into an ApiError typed by extensions.code', async () => {
    client = makeClient(server.url);
    const message = 'Something went wrong. Please try again later or contact support.';
    server.enqueue(
      json(200, {
        errors: [
          { message, path: ['myself'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
          { message: 'second', extensions: { code: 'INTERNAL_SERVER_ERROR' } },
        ],
        data: { myself: null },
      }),
    );
    const error = (await rejectionOf(run(client.graphql.podsWithRuntime()))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      kind: 'transient',
      title: 'INTERNAL_SERVER_ERROR',
      detail: message,
      errors: ['second'],
    });
    expect(error.message).toBe(`POST /graphql (podsWithRuntime): INTERNAL_SERVER_ERROR: ${message} (second)`);
  });

  it('reads "Unauthorized" without a code as an auth error', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { errors: [{ message: 'Unauthorized' }] }));
    const error = (await rejectionOf(run(client.graphql.podStop('p1')))) as ApiError;
    expect(error.kind).toBe('auth');
  });

  it('keeps the messages of errors[] in a 400 answer', async () => {
    client = makeClient(server.url);
    const message = 'Field "allowedCudaVersions" is not defined by type "PodResumeInput".';
    server.enqueue(json(400, { errors: [{ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }));
    const error = (await rejectionOf(run(client.graphql.podStop('p1')))) as ApiError;
    expect(error).toMatchObject({ kind: 'client', status: 400, detail: message });
    expect(error.message).toBe(`POST /graphql (podStop): 400: ${message}`);
  });

  it('reports HTTP 410 as NoDataError: GraphQL retired, whatever the date', async () => {
    client = makeClient(server.url);
    server.enqueue(problem(410, 'Gone', 'GraphQL has been retired'));
    const error = await rejectionOf(run(client.graphql.podsWithRuntime()));
    expect(error).toBeInstanceOf(NoDataError);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(error.message).toBe('POST /graphql (podsWithRuntime): GraphQL retired or gone (HTTP 410)');
  });

  it('reports a 404 before the documented retirement as an error naming the URL to check', async () => {
    client = makeClient(server.url, { clock: new RecordingClock(GRAPHQL_RETIREMENT_EARLIEST - 1) });
    server.enqueue(text(404, 'Not Found'));
    const error = (await rejectionOf(run(client.graphql.podsWithRuntime()))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'not_found', status: 404, url: `${server.url}/graphql` });
    expect(error.message).toBe(
      `POST /graphql (podsWithRuntime): 404: Not Found [nothing found at ${server.url}/graphql, and GraphQL is not retired before early 2027: check api.graphqlBaseUrl (or the account's graphqlBaseUrl)]`,
    );
  });

  it('reports a 404 once the documented retirement has passed as NoDataError', async () => {
    client = makeClient(server.url, { clock: new RecordingClock(Date.UTC(2027, 2, 1)) });
    server.enqueue(text(404, 'Not Found'));
    const error = await rejectionOf(run(client.graphql.podsWithRuntime()));
    expect(error).toBeInstanceOf(NoDataError);
    expect(error.message).toBe('POST /graphql (podsWithRuntime): GraphQL retired or gone (HTTP 404)');
  });

  it('reports an HTML page where JSON was expected as an error naming the URL and the page', async () => {
    client = makeClient(server.url, { clock: new RecordingClock(Date.UTC(2027, 2, 1)) });
    const page = '<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body>hi</body></html>';
    server.enqueue({ kind: 'reply', status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: page });
    const error = (await rejectionOf(run(client.graphql.podsWithRuntime()))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe(
      `POST /graphql (podsWithRuntime): expected JSON from ${server.url}/graphql, got an HTML page (text/html, title "Welcome to nginx!")`,
    );
  });

  it('reports a redirect as an error naming both URLs, without following it or leaking the key', async () => {
    client = makeClient(server.url, { graphqlAuth: 'query' });
    server.enqueue(text(301, '', { location: 'https://www.runpod.io/graphql?from=api' }));
    const error = (await rejectionOf(run(client.graphql.podsWithRuntime()))) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(NoDataError);
    expect(error.message).toBe(
      `POST /graphql (podsWithRuntime): 301 redirect from ${server.url}/graphql to https://www.runpod.io/graphql, where a JSON answer was expected`,
    );
    expect(error.message).not.toContain('rpa_test_key_0000');
    expect(server.requests).toHaveLength(1);
  });

  it('names the data path when the answer does not match the query', async () => {
    client = makeClient(server.url);
    server.enqueue(json(200, { data: { myself: { pods: { id: 7, name: 'x' } } } }));
    const error = await rejectionOf(run(client.graphql.podsWithRuntime()));
    expect(error.message).toBe(
      'POST /graphql (podsWithRuntime): response body data.myself.pods: expected array, received object',
    );
  });

  it('shares one rate-limit budget with REST', async () => {
    client = makeClient(server.url, { concurrency: 1 });
    server.enqueue(json(200, podsAnswer, { ratelimit: '"minute";r=0;t=5' }), json(200, { pods: [] }));
    await run(client.graphql.podsWithRuntime());
    await run(client.rest.listPods());
    expect(client.clock.sleeps).toEqual([5_000]);
  });
});
