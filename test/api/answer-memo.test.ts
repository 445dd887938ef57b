import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { json, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
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

const run = <T>(work: Promise<T>) => drive(client.clock, work);
const volumes = () => documentExample<{ networkVolumes: Array<Record<string, unknown>> }>('get', '/v2/network-volumes');
const stockAnswer = (price: number) => ({
  data: {
    gpuTypes: [{ id: 'NVIDIA A40', displayName: 'A40', memoryInGb: 48, secure: { uninterruptablePrice: price } }],
  },
});

describe('an answer with the bytes of the last one', () => {
  it('is the last value again, and a changed answer is parsed afresh', async () => {
    const changed = volumes();
    (changed.networkVolumes[0] as Record<string, unknown>).size = 250;
    server.enqueue(json(200, volumes()), json(200, volumes()), json(200, changed));
    const first = await run(client.rest.listNetworkVolumes());
    const again = await run(client.rest.listNetworkVolumes());
    const third = await run(client.rest.listNetworkVolumes());
    expect(again).toBe(first);
    expect(third).not.toBe(first);
    expect(third.items.map((volume) => volume.size)).toEqual([250]);
    expect(first.items.map((volume) => volume.size)).toEqual([100]);
  });

  it('is frozen, so no caller can change what later answers get', async () => {
    server.enqueue(json(200, volumes()));
    const listed = await run(client.rest.listNetworkVolumes());
    expect(Object.isFrozen(listed)).toBe(true);
    expect(() => {
      (listed.items[0] as { size: number }).size = 1;
    }).toThrow(TypeError);
  });

  it('fails again with the same error, naming the route and field, when it was bad', async () => {
    // A bad envelope: a bad item alone would be named in `rejected`, not thrown.
    const bad = { networkVolumes: 'none' };
    server.enqueue(json(200, volumes()), json(200, bad), json(200, bad), json(200, volumes()));
    const good = await run(client.rest.listNetworkVolumes());
    const errors = [
      await rejectionOf(run(client.rest.listNetworkVolumes())),
      await rejectionOf(run(client.rest.listNetworkVolumes())),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).kind).toBe('contract');
      expect(error.message).toContain('GET /network-volumes');
      expect(error.message).toContain('networkVolumes');
    }
    expect(errors[1]?.message).toBe(errors[0]?.message);
    // The bad answers in between replaced nothing: the good bytes still give the good value.
    expect(await run(client.rest.listNetworkVolumes())).toBe(good);
  });

  it('is not JSON twice: the same syntax error each time', async () => {
    const cut = { kind: 'reply' as const, status: 200, headers: { 'content-type': 'application/json' }, body: '{"net' };
    server.enqueue(cut, cut);
    const errors = [
      await rejectionOf(run(client.rest.listNetworkVolumes())),
      await rejectionOf(run(client.rest.listNetworkVolumes())),
    ];
    expect(errors[0]?.message).toContain('not valid JSON');
    expect(errors[1]?.message).toBe(errors[0]?.message);
  });

  it('is kept per reader: the same bytes read by another route are that route’s own', async () => {
    server.enqueue(json(200, { clusters: [], networkVolumes: [] }), json(200, { clusters: [], networkVolumes: [] }));
    const listedVolumes = await run(client.rest.listNetworkVolumes());
    const clusters = await run(client.rest.listClusters());
    expect(listedVolumes).toEqual({ items: [], rejected: [] });
    expect(clusters).toEqual({ items: [], rejected: [] });
    expect(clusters).not.toBe(listedVolumes);
  });

  it('is not kept for worker lists, which carry live state and never repeat', async () => {
    const summary = { running: 0, idle: 0, initializing: 0, throttled: 0, unhealthy: 0, total: 0 };
    const workers = { workers: [], summary };
    server.enqueue(json(200, workers), json(200, workers));
    const first = await run(client.rest.listEndpointWorkers('ep-1'));
    const again = await run(client.rest.listEndpointWorkers('ep-1'));
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(false);
  });

  it('on GraphQL: a query’s answer is reused, its errors are never', async () => {
    const failing = { data: null, errors: [{ message: 'upstream busy' }] };
    server.enqueue(
      json(200, stockAnswer(0.35)),
      json(200, stockAnswer(0.35)),
      json(200, failing),
      json(200, failing),
      json(200, stockAnswer(0.4)),
    );
    const first = await run(client.graphql.gpuTypesStock({ gpuCount: 1 }));
    expect(await run(client.graphql.gpuTypesStock({ gpuCount: 1 }))).toBe(first);
    const errors = [
      await rejectionOf(run(client.graphql.gpuTypesStock({ gpuCount: 1 }))),
      await rejectionOf(run(client.graphql.gpuTypesStock({ gpuCount: 1 }))),
    ];
    expect(errors[0]?.message).toContain('upstream busy');
    expect(errors[1]?.message).toBe(errors[0]?.message);
    const changed = await run(client.graphql.gpuTypesStock({ gpuCount: 1 }));
    expect(changed.map((gpu) => gpu.secure?.uninterruptablePrice)).toEqual([0.4]);
  });
});
