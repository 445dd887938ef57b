import { handleRest, type RestReply } from '../../src/simulator/rest.js';
import { parseScenario, type Scenario } from '../../src/simulator/scenario.js';
import { World } from '../../src/simulator/world.js';

/** Shared by the pure (no HTTP) simulator tests: a small account and a way to ask it things. */

export const START = '2026-11-02T00:00:00Z'; // a Monday
export const START_MS = Date.parse(START);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const H100 = 'NVIDIA H100 80GB HBM3';
export const RTX4090 = 'NVIDIA GeForce RTX 4090';

export function catalog(extra: Record<string, unknown> = {}) {
  return {
    gpus: [
      { id: H100, name: 'H100 SXM', memory: 80, price: { secure: 2.99, community: 2.39 }, availability: 'HIGH' },
      {
        id: RTX4090,
        name: 'RTX 4090',
        memory: 24,
        pool: 'ADA_24',
        price: { secure: 0.69, community: 0.34, serverless: 1.1 },
        availability: [
          { at: '0s', value: 'NONE' },
          { at: '3m', value: 'HIGH' },
        ],
      },
    ],
    dataCenters: [
      { id: 'US-KS-2', name: 'US Kansas 2' },
      { id: 'EU-RO-1', name: 'Europe Romania 1' },
    ],
    ...extra,
  };
}

/** A scenario with the given resources on the shared catalog. */
export function scenarioOf(resources: Record<string, unknown>): Scenario {
  return parseScenario({ name: 'unit', start: START, apiKey: 'k', catalog: catalog(), ...resources }, 'unit scenario');
}

export function worldOf(resources: Record<string, unknown>): World {
  return new World(scenarioOf(resources));
}

export function gpuPod(id: string, extra: Record<string, unknown> = {}) {
  return { id, name: id, gpu: { id: H100, count: 1 }, cost: 3.6, ...extra };
}

/** GET/POST/DELETE through the pure router, as the HTTP server would call it. */
export function request(world: World, method: string, url: string, t: number, body?: unknown): RestReply {
  const parsed = new URL(url, 'http://simulator');
  return handleRest(world, { method, path: parsed.pathname, query: parsed.searchParams, body }, t);
}

export function get(world: World, url: string, t: number): RestReply {
  return request(world, 'GET', url, t);
}

/** The body of a successful reply, failing the test with the problem otherwise. */
// biome-ignore lint/suspicious/noExplicitAny: test access to JSON bodies
export function body(reply: RestReply): any {
  if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
