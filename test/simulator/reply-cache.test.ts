import { describe, expect, it } from 'vitest';
import { handleGraphql } from '../../src/simulator/graphql.js';
import { encodeReply } from '../../src/simulator/reply.js';
import { catalog, get, H100, MINUTE, START_MS, worldOf } from './world-fixtures.js';

/**
 * Replies kept per availability version (reply-cache.ts) against the same replies built by a
 * world that has kept nothing, at every half minute across availability changes: the bytes must
 * be the same, and a kept reply must be the very buffer built before while nothing changed.
 */

const STOCK = `query gpuTypesStock($gpuCount: Int!) {
  gpuTypes { id displayName memoryInGb
    secure: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: true }) { stockStatus uninterruptablePrice availableGpuCounts }
    community: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: false }) { stockStatus availableGpuCounts } } }`;

const ROUTES = [
  '/v2/catalog/gpus?include=AVAILABILITY&product=POD',
  '/v2/catalog/gpus?include=AVAILABILITY&product=POD&count=2&cloud=COMMUNITY',
  '/v2/catalog/gpus',
  '/v2/catalog/datacenters?include=GPU_AVAILABILITY',
  '/v2/catalog/cpus',
];

/** H100 goes HIGH, LOW at 5m, NONE at 7m; the RTX 4090 is NONE until 3m, then HIGH (fixtures). */
const world = () =>
  worldOf({
    catalog: catalog({
      gpus: [
        ...(catalog().gpus as Array<Record<string, unknown>>).map((gpu) =>
          gpu.id === H100
            ? {
                ...gpu,
                availability: [
                  { at: '0s', value: 'HIGH' },
                  { at: '5m', value: 'LOW' },
                  { at: '7m', value: 'NONE' },
                ],
              }
            : gpu,
        ),
      ],
    }),
  });

function stock(w: ReturnType<typeof world>, t: number, gpuCount = 1): Buffer | undefined {
  const body = { query: STOCK, operationName: 'gpuTypesStock', variables: { gpuCount } };
  return encodeReply(handleGraphql({ world: w, nowMs: t, method: 'POST', body, readOnly: false })).bytes;
}

describe('simulator: replies kept per availability', () => {
  it('are the bytes a fresh world builds, at every time, and rebuilt only when availability changes', () => {
    const kept = world();
    const seen = new Map<string, Set<string>>();
    let previous = new Map<string, Buffer | undefined>();
    for (let t = START_MS; t <= START_MS + 10 * MINUTE; t += MINUTE / 2) {
      const now = new Map<string, Buffer | undefined>();
      for (const route of ROUTES) now.set(route, get(kept, route, t).bytes);
      now.set('graphql', stock(kept, t));
      now.set('graphql x8', stock(kept, t, 8));
      for (const [name, bytes] of now) {
        const fresh = name.startsWith('graphql')
          ? stock(world(), t, name.endsWith('x8') ? 8 : 1)
          : get(world(), name, t).bytes;
        expect(bytes?.toString(), `${name} at +${(t - START_MS) / MINUTE}m`).toBe(fresh?.toString());
        const texts = seen.get(name) ?? new Set();
        seen.set(name, texts.add(bytes?.toString() ?? ''));
        const changes = [3, 5, 7].some((m) => t === START_MS + m * MINUTE);
        // Served again as the very bytes kept, unless availability changed at this moment.
        if (t > START_MS && !changes)
          expect(bytes, `${name} kept at +${(t - START_MS) / MINUTE}m`).toBe(previous.get(name));
      }
      previous = now;
    }
    // The answers did change over the span: availability is in them, so a stale one would show.
    expect(seen.get('graphql')?.size).toBe(4);
    expect(seen.get('/v2/catalog/gpus?include=AVAILABILITY&product=POD')?.size).toBe(4);
    expect(seen.get('/v2/catalog/datacenters?include=GPU_AVAILABILITY')?.size).toBe(4);
    expect(seen.get('/v2/catalog/cpus')?.size).toBe(1);
  });

  it('keeps no GraphQL answer with errors, and still validates each request', () => {
    const w = world();
    expect(stock(w, START_MS)?.toString()).toContain('"data"');
    const bad = { query: STOCK, operationName: 'gpuTypesStock', variables: { gpuCount: 'many' } };
    for (let i = 0; i < 2; i++) {
      const reply = encodeReply(
        handleGraphql({ world: w, nowMs: START_MS, method: 'POST', body: bad, readOnly: false }),
      );
      expect(reply.status).toBe(400);
      expect(reply.payload).toContain('GRAPHQL_VALIDATION_FAILED');
    }
    expect(get(w, '/v2/catalog/gpus?include=AVAILABILITY', START_MS).status).toBe(400);
  });

  it('keep the volume list until a volume is created, and the endpoint list for good', () => {
    const resources = {
      volumes: [
        { id: 'old', name: 'old', size: 100, dataCenter: 'US-KS-2' },
        { id: 'new', name: 'new', size: 50, dataCenter: 'EU-RO-1', createdAt: '4m' },
      ],
      endpoints: [{ id: 'ep', name: 'ep', gpu: { pools: ['ADA_24'] }, workers: { min: 1, max: 1 } }],
    };
    const kept = worldOf(resources);
    const lists: string[] = [];
    let previous: Buffer | undefined;
    for (let t = START_MS; t <= START_MS + 6 * MINUTE; t += MINUTE) {
      const volumes = get(kept, '/v2/network-volumes', t).bytes;
      expect(volumes?.toString()).toBe(get(worldOf(resources), '/v2/network-volumes', t).bytes?.toString());
      if (t !== START_MS && t !== START_MS + 4 * MINUTE) expect(volumes).toBe(previous);
      lists.push(volumes?.toString() ?? '');
      previous = volumes;
      const endpoints = get(kept, '/v2/serverless', t).bytes;
      expect(endpoints?.toString()).toBe(get(worldOf(resources), '/v2/serverless', t).bytes?.toString());
      expect(endpoints).toBe(get(kept, '/v2/serverless', t).bytes);
    }
    expect(new Set(lists).size).toBe(2);
    expect(lists[4]).toContain('"id":"new"');
  });
});
