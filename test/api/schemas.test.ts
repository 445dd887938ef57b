import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../src/api/errors.js';
import { parseBody } from '../../src/api/parse.js';
import {
  CpuType,
  DataCenter,
  Endpoint,
  ErrorResponse,
  GpuType,
  ListBillingResponse,
  ListClusterBillingResponse,
  ListEndpointBillingResponse,
  ListEndpointWorkersResponse,
  ListNetworkVolumeBillingResponse,
  ListPodBillingResponse,
  ListServerlessBillingResponse,
  NetworkVolume,
  Pod,
} from '../../src/api/schemas.js';
import { documentExamples, openapi } from './document.js';

/** A list answer as the client reads it (parseItems): the items under `key`. */
const listOf = (key: string, item: z.ZodType) => z.looseObject({ [key]: z.array(item) });

/** Every response the client reads, with the schema it is read with. */
const readRoutes: Array<[method: string, path: string, schema: z.ZodType]> = [
  ['get', '/v2/pods', listOf('pods', Pod)],
  ['get', '/v2/pods/{id}', Pod],
  ['post', '/v2/pods/{id}/action', Pod],
  ['get', '/v2/clusters/{id}/pods', listOf('pods', Pod)],
  ['get', '/v2/serverless', listOf('endpoints', Endpoint)],
  ['get', '/v2/serverless/{id}', Endpoint],
  ['get', '/v2/serverless/{id}/workers', ListEndpointWorkersResponse],
  ['get', '/v2/network-volumes', listOf('networkVolumes', NetworkVolume)],
  ['get', '/v2/catalog/gpus', listOf('gpus', GpuType)],
  ['get', '/v2/catalog/gpus/{id}', GpuType],
  ['get', '/v2/catalog/cpus', listOf('cpus', CpuType)],
  ['get', '/v2/catalog/datacenters', listOf('dataCenters', DataCenter)],
  ['get', '/v2/billing', ListBillingResponse],
  ['get', '/v2/billing/pods', ListPodBillingResponse],
  ['get', '/v2/billing/serverless', ListServerlessBillingResponse],
  ['get', '/v2/billing/endpoints', ListEndpointBillingResponse],
  ['get', '/v2/billing/network-volumes', ListNetworkVolumeBillingResponse],
  ['get', '/v2/billing/clusters', ListClusterBillingResponse],
];

describe('the v2 document examples parse with our schemas', () => {
  for (const [method, path, schema] of readRoutes) {
    const examples = documentExamples(method, path);
    // GET /v2/clusters/{id}/pods has no example of its own; Prism builds one in the contract test.
    if (examples.length === 0) continue;
    it.each(examples)(`${method.toUpperCase()} ${path} example %s`, (_name, value) => {
      expect(() => parseBody(schema, value, `${method.toUpperCase()} ${path}`)).not.toThrow();
    });
  }

  it('covers the error examples (problem+json)', () => {
    const responses = (openapi as unknown as { components: { responses: Record<string, unknown> } }).components
      .responses;
    const values = Object.values(responses).flatMap((response) =>
      Object.values((response as { content: Record<string, { examples: Record<string, { value: unknown }> }> }).content)
        .flatMap((media) => Object.values(media.examples))
        .map((example) => example.value),
    );
    expect(values.length).toBeGreaterThanOrEqual(7);
    for (const value of values) expect(ErrorResponse.safeParse(value).success).toBe(true);
  });
});

describe('normalisation', () => {
  it('gives the document Pod example a runtime with explicit nulls for what it does not report', () => {
    const [[, example]] = documentExamples('get', '/v2/pods/{id}') as [[string, unknown]];
    const pod = parseBody(Pod, example, 'GET /pods/{id}');
    expect(pod.runtime).toEqual({
      uptime: 3600,
      gpus: null,
      cpu: null,
      memory: null,
      ports: [{ private: 22, public: 34446, type: 'tcp', ip: '195.26.233.3' }],
    });
    expect(pod.gpu).toEqual({ id: 'NVIDIA GeForce RTX 4090', count: 1 });
  });

  it('rejects v1-style billing times, which are not RFC 3339', () => {
    const [[, example]] = documentExamples('get', '/v2/billing/pods') as [[string, Record<string, unknown>]];
    const records = [{ ...(example.records as object[])[0], startTime: '2026-08-17 16:00:00' }];
    const error = (() => {
      try {
        parseBody(ListPodBillingResponse, { ...example, records }, 'GET /billing/pods');
      } catch (caught) {
        return caught as ApiError;
      }
    })();
    expect(error?.kind).toBe('contract');
    expect(error?.message).toBe(
      'GET /billing/pods: response body records[0].startTime: expected an RFC 3339 date-time, received "2026-08-17 16:00:00"',
    );
  });
});

describe('what RFC 3339 and the document allow', () => {
  const example = () => structuredClone(documentExamples('get', '/v2/pods/{id}')[0]?.[1]) as Record<string, unknown>;

  it('accepts a date-time with lowercase t and z (RFC 3339 §5.6) and keeps it in canonical form', () => {
    const pod = { ...example(), createdAt: '2026-11-02t09:00:00z', startedAt: '2026-11-02t09:01:00.5+01:00' };
    const parsed = parseBody(Pod, pod, 'GET /pods/{id}');
    expect(parsed.createdAt).toBe('2026-11-02T09:00:00Z');
    expect(parsed.startedAt).toBe('2026-11-02T09:01:00.5+01:00');
  });

  it('still refuses a date that is not RFC 3339, naming the field', () => {
    const pod = { ...example(), createdAt: '02/11/2026 09:00' };
    expect(() => parseBody(Pod, pod, 'GET /pods/{id}')).toThrow(
      'GET /pods/{id}: response body createdAt: expected an RFC 3339 date-time, received "02/11/2026 09:00"',
    );
  });

  it('accepts an integer beyond 2^53 (the document bounds none) and refuses a fraction', () => {
    const body = { ...example(), disk: 2 ** 60 };
    expect(parseBody(Pod, body, 'GET /pods/{id}').disk).toBe(2 ** 60);
    expect(() => parseBody(Pod, { ...example(), disk: 1.5 }, 'GET /pods/{id}')).toThrow(/disk: expected an integer/);
  });
});
