import { afterEach, describe, expect, it } from 'vitest';
import type { V2Pod } from '../../src/simulator/pod-view.js';
import { H100, RTX4090, startTestSim, type TestSim } from './harness.js';

let t: TestSim;
afterEach(async () => {
  await t?.sim.close();
});

interface Envelope<Data = Record<string, unknown>> {
  data?: Data | null;
  errors?: Array<{ message: string; path?: Array<string | number>; extensions: { code: string } }>;
}

async function gql<Data = Record<string, unknown>>(
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ status: number; body: Envelope<Data> }> {
  const res = await t.graphql(query, variables);
  expect(res.headers.get('content-type')).toBe('application/json');
  return { status: res.status, body: (await res.json()) as Envelope<Data> };
}

interface GqlPod {
  id: string;
  name: string;
  runtime: {
    uptimeInSeconds: number;
    ports: unknown[];
    gpus: Array<{ id: string; gpuUtilPercent: number; memoryUtilPercent: number }>;
    container: { cpuPercent: number; memoryPercent: number };
  } | null;
}

async function restPod(id: string): Promise<V2Pod> {
  return (await (await t.call(`/v2/pods/${id}`)).json()) as V2Pod;
}

/** The query of RunPod's docs (api-notes §5.2), the daemon's GraphQL fallback. */
const PODS_WITH_UTILIZATION = `query {
  myself { pods { id name runtime { uptimeInSeconds
    ports { ip isIpPublic privatePort publicPort type }
    gpus { id gpuUtilPercent memoryUtilPercent }
    container { cpuPercent memoryPercent } } } } }`;

describe('simulator GraphQL queries', () => {
  it('lists Pods with utilisation that agrees with REST v2, returning only the selected fields', async () => {
    t = await startTestSim();
    const { status, body } = await gql<{ myself: { pods: GqlPod[] } }>(PODS_WITH_UTILIZATION);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const pods = body.data?.myself.pods ?? [];
    const train = pods.find((p) => p.id === 'pod-train-1');
    expect(Object.keys(train ?? {})).toEqual(['id', 'name', 'runtime']);
    const runtime = train?.runtime;
    if (!runtime) throw new Error('pod-train-1 is RUNNING but has no runtime');
    expect(Object.keys(runtime)).toEqual(['uptimeInSeconds', 'ports', 'gpus', 'container']);
    const rest = await restPod('pod-train-1');
    if (!rest.runtime) throw new Error('REST shows no runtime for pod-train-1');
    expect(train?.name).toBe(rest.name);
    expect(runtime.uptimeInSeconds).toBe(rest.runtime.uptime);
    expect(runtime.gpus).toHaveLength(2);
    runtime.gpus.forEach((gpu, i) => {
      expect(gpu.id).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(gpu.gpuUtilPercent).toBe(rest.runtime?.gpus[i]?.util);
      expect(gpu.memoryUtilPercent).toBe(rest.runtime?.gpus[i]?.memoryUtil);
    });
    expect(runtime.gpus[0]?.id).not.toBe(runtime.gpus[1]?.id);
    expect(runtime.gpus[0]?.gpuUtilPercent).toBe(97);
    expect(runtime.container).toEqual({ cpuPercent: rest.runtime.cpu.util, memoryPercent: rest.runtime.memory.util });
    const stopped = pods.find((p) => p.id === 'pod-note-1');
    expect(stopped).toEqual({ id: 'pod-note-1', name: 'notebook', runtime: null });
  });

  it('answers pod(input) with variables and aliases', async () => {
    t = await startTestSim();
    const { body } = await gql(
      'query OnePod($podId: String!) { it: pod(input: {podId: $podId}) { podId: id desiredStatus costPerHr gpuCount } }',
      { podId: 'pod-train-1' },
    );
    expect(body).toEqual({
      data: { it: { podId: 'pod-train-1', desiredStatus: 'RUNNING', costPerHr: 5.98, gpuCount: 2 } },
    });
  });

  it('reports an unknown Pod as a field error with a path, not a crash', async () => {
    t = await startTestSim();
    const { status, body } = await gql('{ pod(input: {podId: "nope"}) { id } }');
    expect(status).toBe(200);
    expect(body.data).toEqual({ pod: null });
    expect(body.errors?.[0]).toMatchObject({ path: ['pod'], extensions: { code: 'RUNPOD' } });
    expect(body.errors?.[0]?.message).toMatch(/nope/);
  });

  it('answers the GPU stock query of the docs from the catalog', async () => {
    t = await startTestSim();
    const query = `query Stock($id: String) { gpuTypes(input: {id: $id}) { id displayName memoryInGb
      lowestPrice(input: {gpuCount: 1, secureCloud: true}) { stockStatus uninterruptablePrice availableGpuCounts } } }`;
    const h100 = await gql(query, { id: H100 });
    expect(h100.body.data?.gpuTypes).toEqual([
      {
        id: H100,
        displayName: 'H100 SXM',
        memoryInGb: 80,
        lowestPrice: {
          stockStatus: 'High',
          uninterruptablePrice: 2.99,
          availableGpuCounts: expect.arrayContaining([1]),
        },
      },
    ]);
    const rtx = await gql<{ gpuTypes: Array<{ lowestPrice: unknown }> }>(query, { id: RTX4090 });
    expect(rtx.body.data?.gpuTypes[0]?.lowestPrice).toEqual({
      stockStatus: 'None',
      uninterruptablePrice: 0.69,
      availableGpuCounts: [],
    });
    const unknown = await gql(query, { id: 'NVIDIA Z9000' });
    expect(unknown.body.data?.gpuTypes).toEqual([]);
    const all = await gql('{ gpuTypes { id } }');
    expect(all.body.data?.gpuTypes).toHaveLength(2);
  });

  it("parses runpod-python's full Pod query", async () => {
    t = await startTestSim();
    const { status, body } = await gql<{
      myself: { pods: Array<{ id: string }> };
    }>(`query myPods { myself { pods { id containerDiskInGb costPerHr desiredStatus
      dockerArgs env gpuCount imageName lastStatusChange machineId memoryInGb name podType ports uptimeSeconds
      vcpuCount volumeInGb volumeMountPath runtime { ports { ip isIpPublic privatePort publicPort type } }
      machine { gpuDisplayName } } } }`);
    expect(status).toBe(200);
    const train = body.data?.myself.pods.find((p) => p.id === 'pod-train-1');
    expect(train).toMatchObject({
      costPerHr: 5.98,
      gpuCount: 2,
      env: ['TEAM=research'],
      machine: { gpuDisplayName: 'H100 SXM' },
    });
  });
});

describe('simulator GraphQL mutations', () => {
  it('stops and resumes a Pod, as REST then shows', async () => {
    t = await startTestSim();
    const stopped = await gql(
      'mutation stopPod($podId: String!) { podStop(input: {podId: $podId}) { id desiredStatus lastStatusChange } }',
      { podId: 'pod-train-1' },
    );
    expect(stopped.body.data?.podStop).toMatchObject({ id: 'pod-train-1', desiredStatus: 'EXITED' });
    expect((await restPod('pod-train-1')).status).toBe('EXITED');
    const resumed = await gql(
      'mutation { podResume(input: {podId: "pod-train-1", gpuCount: 2}) { id desiredStatus } }',
    );
    expect(resumed.body).toEqual({ data: { podResume: { id: 'pod-train-1', desiredStatus: 'RUNNING' } } });
    expect((await restPod('pod-train-1')).status).not.toBe('EXITED');
  });

  it('reports an invalid transition as a field error', async () => {
    t = await startTestSim();
    const { status, body } = await gql('mutation { podStop(input: {podId: "pod-note-1"}) { id } }');
    expect(status).toBe(200);
    expect(body.data).toEqual({ podStop: null });
    expect(body.errors?.[0]?.path).toEqual(['podStop']);
  });
});

describe('simulator GraphQL errors', () => {
  it.each([
    ['{ myself { pods { id bogus } } }', 'Cannot query field "bogus" on type "Pod".'],
    ['{ nope { id } }', 'Cannot query field "nope" on type "Query".'],
    ['{ myself { pods { runtime } } }', 'Field "runtime" of type "PodRuntime" must have a selection of subfields.'],
    ['{ myself { pods { id { x } } } }', 'Field "id" must not have a selection since type "String" has no subfields.'],
    [
      'mutation { podResume(input: {podId: "pod-note-1", allowedCudaVersions: ["12.8"]}) { id } }',
      'Field "allowedCudaVersions" is not defined by type "PodResumeInput".',
    ],
    [
      'mutation { podStop(input: {}) { id } }',
      'Field "PodStopInput.podId" of required type "String!" was not provided.',
    ],
    [
      'query Q($podId: String!) { pod(input: {podId: $podId}) { id } }',
      'Variable "$podId" of required type "String!" was not provided.',
    ],
    ['{ pod(input: {podId: $undeclared}) { id } }', 'Variable "$undeclared" is not defined.'],
    ['subscription { myself { id } }', 'Schema is not configured to execute subscription operation.'],
  ])('answers 400 to %s', async (query, message) => {
    t = await startTestSim();
    const { status, body } = await gql(query);
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(body.errors?.map((e) => e.message)).toContainEqual(expect.stringContaining(message));
    expect(body.errors?.[0]?.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('answers 400 with the location of a syntax error', async () => {
    t = await startTestSim();
    const { status, body } = await gql('{ myself { pods { id }');
    expect(status).toBe(400);
    expect(body.errors?.[0]).toMatchObject({
      message: 'Syntax Error: Expected Name, found <EOF>.',
      extensions: { code: 'GRAPHQL_PARSE_FAILED' },
    });
  });

  it('answers 405 to anything but POST', async () => {
    t = await startTestSim();
    const res = await t.call('/graphql');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(((await res.json()) as Envelope).errors?.[0]?.extensions.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 400 to a body without a query', async () => {
    t = await startTestSim();
    const res = await t.call('/graphql', { method: 'POST', body: JSON.stringify({ variables: {} }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Envelope).errors?.[0]?.message).toMatch(/"query"/);
  });
});
