import { describe, expect, it } from 'vitest';
import { body, get, H100, MINUTE, RTX4090, START_MS, worldOf } from './world-fixtures.js';

const world = () => worldOf({});

describe('rest: /v2/catalog/gpus', () => {
  it('lists GPU types with prices, without availability unless asked', () => {
    const gpus = body(get(world(), '/v2/catalog/gpus', START_MS)).gpus;
    expect(gpus[0]).toEqual({
      id: H100,
      name: 'H100 SXM',
      pool: null,
      manufacturer: 'NVIDIA',
      memory: 80,
      secure: true,
      community: true,
      price: { secure: 2.99, community: 2.39 },
      maxCount: { secure: 8, community: 8 },
    });
    expect(gpus[1]).toMatchObject({ pool: 'ADA_24', price: { serverless: 1.1 } });
  });

  it('include=AVAILABILITY&product=POD adds availability, per data center, and CUDA versions', () => {
    const gpus = body(get(world(), '/v2/catalog/gpus?include=AVAILABILITY&product=POD', START_MS)).gpus;
    expect(gpus[0]).toMatchObject({
      availability: 'HIGH',
      dataCenters: [
        { id: 'US-KS-2', name: 'US Kansas 2', availability: 'HIGH' },
        { id: 'EU-RO-1', name: 'Europe Romania 1', availability: 'HIGH' },
      ],
      cudaVersions: [
        { version: '12.4', available: true },
        { version: '12.6', available: true },
        { version: '12.8', available: true },
      ],
    });
    // Out of stock: NONE, and no dataCenters at all.
    expect(gpus[1].availability).toBe('NONE');
    expect(gpus[1].dataCenters).toBeUndefined();
  });

  it('follows the scenario: the RTX 4090 comes back in stock after 3 minutes', () => {
    const url = `/v2/catalog/gpus/${encodeURIComponent(RTX4090)}?include=AVAILABILITY&product=POD`;
    const w = world();
    expect(body(get(w, url, START_MS + 2 * MINUTE)).availability).toBe('NONE');
    expect(body(get(w, url, START_MS + 3 * MINUTE)).availability).toBe('HIGH');
  });

  it('include needs product, and product (or any availability filter) needs include: 400 either way', () => {
    for (const url of [
      '/v2/catalog/gpus?include=AVAILABILITY',
      '/v2/catalog/gpus?product=POD',
      '/v2/catalog/gpus?count=2',
      '/v2/catalog/gpus?cloud=COMMUNITY',
      `/v2/catalog/gpus/${encodeURIComponent(H100)}?include=AVAILABILITY`,
      '/v2/catalog/gpus?include=AVAILABILITY&product=POD&cudaVersions=12.8&minCudaVersion=12',
    ]) {
      const reply = get(world(), url, START_MS);
      expect(reply.status, url).toBe(400);
      expect(reply.headers?.['content-type']).toBe('application/problem+json');
    }
  });

  it('malformed values are 422 (enums, patterns, minimums)', () => {
    const reply = get(
      world(),
      '/v2/catalog/gpus?include=EVERYTHING&product=POD,DESKTOP&count=0&countryCodes=fr',
      START_MS,
    );
    expect(reply.status).toBe(422);
    expect((reply.body as { errors: string[] }).errors).toEqual([
      `query.include[0]: "EVERYTHING" is not one of 'AVAILABILITY'`,
      `query.product[1]: "DESKTOP" is not one of 'POD', 'CLUSTER', 'SERVERLESS'`,
      'query.count: expected number >= 1, got 0',
      'query.countryCodes[0]: "fr" is not a match of ^[A-Z]{2}$',
    ]);
  });

  it('availability depends on count, cloud, product, countries and CUDA versions', () => {
    const w = world();
    const h100 = (filters: string) =>
      body(get(w, `/v2/catalog/gpus/${encodeURIComponent(H100)}?include=AVAILABILITY&${filters}`, START_MS));
    expect(h100('product=POD&count=9').availability).toBe('NONE'); // more than maxCount
    expect(h100('product=SERVERLESS').availability).toBe('NONE'); // in no serverless pool
    expect(h100('product=POD&countryCodes=RO')).toMatchObject({
      availability: 'HIGH',
      dataCenters: [{ id: 'EU-RO-1' }],
    });
    const inJapan = h100('product=POD&countryCodes=JP');
    expect(inJapan.availability).toBe('NONE');
    expect(inJapan.dataCenters).toBeUndefined();
    expect(h100('product=POD&minCudaVersion=12.6').cudaVersions.map((v: { version: string }) => v.version)).toEqual([
      '12.6',
      '12.8',
    ]);
    expect(h100('product=POD&cudaVersions=11.8').availability).toBe('NONE');
    // The list drops GPU types with no data center in the countries asked for.
    expect(body(get(w, '/v2/catalog/gpus?include=AVAILABILITY&product=POD&countryCodes=JP', START_MS)).gpus).toEqual(
      [],
    );
  });

  it('404 for an unknown GPU type', () => {
    expect(get(world(), '/v2/catalog/gpus/NVIDIA%20B9000', START_MS).status).toBe(404);
  });
});

describe('rest: /v2/catalog/cpus and /v2/catalog/datacenters', () => {
  it('CPU flavors, with availability only on request; vcpuCount must be a power of two', () => {
    const w = world();
    expect(body(get(w, '/v2/catalog/cpus', START_MS)).cpus[0]).toEqual({
      id: 'cpu3c',
      name: 'Compute-Optimized',
      group: 'Gen 3',
      vcpu: { min: 2, max: 32 },
      ramGbPerVcpu: 2,
      price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.04 },
    });
    expect(
      body(get(w, '/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=POD&vcpuCount=64', START_MS)).availability,
    ).toBe('NONE');
    expect(get(w, '/v2/catalog/cpus?include=AVAILABILITY&product=POD&vcpuCount=6', START_MS).status).toBe(400);
    expect(get(w, '/v2/catalog/cpus?vcpuCount=4', START_MS).status).toBe(400);
  });

  it('data centers with region derived from the id, filters, and availability expansions', () => {
    const w = world();
    expect(body(get(w, '/v2/catalog/datacenters', START_MS)).dataCenters).toEqual([
      {
        id: 'US-KS-2',
        name: 'US Kansas 2',
        region: 'NORTH_AMERICA',
        globalNetwork: false,
        networkVolumeTypes: ['STANDARD', 'HIGH_PERFORMANCE'],
        compliance: [],
      },
      {
        id: 'EU-RO-1',
        name: 'Europe Romania 1',
        region: 'EUROPE',
        globalNetwork: false,
        networkVolumeTypes: ['STANDARD', 'HIGH_PERFORMANCE'],
        compliance: [],
      },
    ]);
    const europe = body(
      get(w, '/v2/catalog/datacenters?regions=EUROPE&include=GPU_AVAILABILITY', START_MS),
    ).dataCenters;
    expect(europe).toHaveLength(1);
    expect(europe[0].gpuAvailability).toEqual([
      { id: H100, name: 'H100 SXM', availability: 'HIGH' },
      { id: RTX4090, name: 'RTX 4090', availability: 'NONE' },
    ]);
    expect(europe[0].cpuAvailability).toBeUndefined();
    expect(get(w, '/v2/catalog/datacenters?regions=MOON', START_MS).status).toBe(422);
    expect(
      body(get(w, '/v2/catalog/datacenters/EU-RO-1?include=CPU_AVAILABILITY', START_MS)).cpuAvailability,
    ).toHaveLength(3);
    expect(get(w, '/v2/catalog/datacenters/MARS-1', START_MS).status).toBe(404);
  });
});
