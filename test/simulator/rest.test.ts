import { describe, expect, it } from 'vitest';
import { body, get, gpuPod, H100, HOUR, request, START_MS, worldOf } from './world-fixtures.js';

const world = () =>
  worldOf({
    pods: [gpuPod('run', { startedAt: '-1h' }), gpuPod('off', { status: 'EXITED', volumeGb: 10 })],
    clusters: [
      {
        id: 'cl',
        name: 'cl',
        pods: [
          { id: 'n0', name: 'n0', gpu: { id: H100, count: 8 }, cost: 20 },
          { id: 'n1', name: 'n1', gpu: { id: H100, count: 8 }, cost: 20 },
        ],
      },
    ],
    volumes: [{ id: 'vol', name: 'data', size: 100, dataCenter: 'US-KS-2' }],
    endpoints: [{ id: 'ep', name: 'ep', gpu: { pools: ['ADA_24'] }, workers: { min: 1, max: 2 } }],
  });

const PROBLEM = { 'content-type': 'application/problem+json' };

describe('rest: Pods', () => {
  it('lists Pods, cluster members only with includeClusterPods=true', () => {
    const w = world();
    const ids = (url: string) => body(get(w, url, START_MS)).pods.map((pod: { id: string }) => pod.id);
    expect(ids('/v2/pods')).toEqual(['run', 'off']);
    expect(ids('/v2/pods?includeClusterPods=false')).toEqual(['run', 'off']);
    expect(ids('/v2/pods?includeClusterPods=true')).toEqual(['run', 'off', 'n0', 'n1']);
  });

  it('gets one Pod, cluster members included; 404 as problem+json for an unknown one', () => {
    const w = world();
    expect(body(get(w, '/v2/pods/n1', START_MS))).toMatchObject({ id: 'n1', cluster: { id: 'cl', rank: 1 } });
    expect(get(w, '/v2/pods/nope', START_MS)).toEqual({
      status: 404,
      body: { title: 'Not Found', status: 404, detail: 'pod nope not found' },
      headers: PROBLEM,
    });
  });

  it('POST /action: 200 with the Pod, 204 for terminate, 409 for an invalid transition', () => {
    const w = world();
    const stop = request(w, 'POST', '/v2/pods/run/action', START_MS, { action: 'stop' });
    expect(stop).toMatchObject({ status: 200, body: { id: 'run', status: 'EXITED', cost: 0 } });
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, { action: 'stop' })).toMatchObject({
      status: 409,
      body: { title: 'Conflict', status: 409 },
      headers: PROBLEM,
    });
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, { action: 'terminate' })).toEqual({ status: 204 });
    expect(get(w, '/v2/pods/run', START_MS).status).toBe(404);
  });

  it('POST /action validates its body like the document: 422 with the failures, 400 without a body', () => {
    const w = world();
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, { action: 'stop', bogus: 1 })).toEqual({
      status: 422,
      body: {
        title: 'Unprocessable Entity',
        status: 422,
        detail: 'Request validation failed.',
        errors: ["$: additional properties 'bogus' not allowed"],
      },
      headers: PROBLEM,
    });
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, { action: 'reset' }).body).toMatchObject({
      errors: ["$.action: value must be one of 'start', 'stop', 'restart', 'terminate'"],
    });
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, {}).body).toMatchObject({
      errors: ["$: missing property 'action'"],
    });
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS, 'stop').status).toBe(422);
    expect(request(w, 'POST', '/v2/pods/run/action', START_MS).status).toBe(400);
    expect(body(get(w, '/v2/pods/run', START_MS)).status).toBe('RUNNING');
  });

  it('DELETE terminates (204); a cluster member is 409; an unknown Pod 404', () => {
    const w = world();
    expect(request(w, 'DELETE', '/v2/pods/off', START_MS)).toEqual({ status: 204 });
    expect(w.podStatuses(START_MS).off).toBe('TERMINATED');
    expect(request(w, 'DELETE', '/v2/pods/n0', START_MS)).toMatchObject({ status: 409, headers: PROBLEM });
    expect(request(w, 'DELETE', '/v2/pods/nope', START_MS).status).toBe(404);
  });

  it('refuses includeClusterPods that is not a boolean (422)', () => {
    expect(get(world(), '/v2/pods?includeClusterPods=yes', START_MS)).toMatchObject({
      status: 422,
      body: { errors: ['query.includeClusterPods: expected boolean, got "yes"'] },
    });
  });
});

describe('rest: other resources', () => {
  it('clusters: list, get, members; 404 for an unknown one', () => {
    const w = world();
    expect(body(get(w, '/v2/clusters', START_MS)).clusters.map((c: { id: string }) => c.id)).toEqual(['cl']);
    expect(body(get(w, '/v2/clusters/cl', START_MS))).toMatchObject({ pods: { total: 2, byStatus: { RUNNING: 2 } } });
    expect(body(get(w, '/v2/clusters/cl/pods', START_MS)).pods.map((p: { id: string }) => p.id)).toEqual(['n0', 'n1']);
    expect(get(w, '/v2/clusters/nope/pods', START_MS).status).toBe(404);
  });

  it('serverless: list, get, workers with summary and endpointVersion, releases', () => {
    const w = world();
    expect(body(get(w, '/v2/serverless', START_MS)).endpoints[0]).toMatchObject({
      id: 'ep',
      workers: { min: 1, max: 2, idleTimeout: 5 },
      gpu: { pools: ['ADA_24'], count: 1 },
    });
    expect(body(get(w, '/v2/serverless/ep/workers', START_MS))).toMatchObject({
      summary: { running: 0, idle: 1, total: 1 },
      endpointVersion: 1,
    });
    expect(body(get(w, '/v2/serverless/ep/releases', START_MS))).toMatchObject({ endpointVersion: 1, releases: [] });
    expect(get(w, '/v2/serverless/nope/workers', START_MS).status).toBe(404);
  });

  it('network volumes, and empty templates and registries', () => {
    const w = world();
    expect(body(get(w, '/v2/network-volumes', START_MS))).toEqual({
      networkVolumes: [{ id: 'vol', name: 'data', size: 100, dataCenter: 'US-KS-2', type: 'STANDARD' }],
    });
    expect(body(get(w, '/v2/network-volumes/vol', START_MS)).id).toBe('vol');
    expect(body(get(w, '/v2/templates', START_MS))).toEqual({ templates: [] });
    expect(body(get(w, '/v2/registries', START_MS))).toEqual({ registries: [] });
    expect(body(get(w, '/v2/registries/delegations', START_MS))).toEqual({ delegations: [] });
    expect(get(w, '/v2/templates/t1', START_MS).status).toBe(404);
  });
});

describe('rest: routing', () => {
  it('404 for a path the API does not have', () => {
    expect(get(world(), '/v2/gadgets', START_MS)).toMatchObject({ status: 404, headers: PROBLEM });
    expect(get(world(), '/v2/pods/', START_MS).status).toBe(404);
  });

  it('405 with Allow for a known path and a method it does not take', () => {
    expect(request(world(), 'PUT', '/v2/pods', START_MS, {})).toEqual({
      status: 405,
      body: { title: 'Method Not Allowed', status: 405, detail: 'The requested method is not allowed for this path.' },
      headers: { ...PROBLEM, allow: 'GET, POST' },
    });
    expect(request(world(), 'POST', '/v2/billing', START_MS).headers?.allow).toBe('GET');
  });

  it('501 for what the document has and the simulator does not play (creating, editing)', () => {
    expect(request(world(), 'POST', '/v2/pods', START_MS, { name: 'x' })).toMatchObject({
      status: 501,
      body: { detail: 'the simulator does not implement POST /v2/pods' },
      headers: PROBLEM,
    });
  });

  it('decodes path parameters (GPU ids have spaces)', () => {
    expect(body(get(world(), '/v2/catalog/gpus/NVIDIA%20H100%2080GB%20HBM3', START_MS)).id).toBe(H100);
  });

  it('answers at the time it is given', () => {
    const w = worldOf({ pods: [gpuPod('p', { events: [{ at: '1h', action: 'stop' }] })] });
    expect(body(get(w, '/v2/pods/p', START_MS + HOUR - 1)).status).toBe('RUNNING');
    expect(body(get(w, '/v2/pods/p', START_MS + HOUR)).status).toBe('EXITED');
  });
});
