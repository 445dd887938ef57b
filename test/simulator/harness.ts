import { VirtualClock } from '../../src/clock.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { type Simulator, startSimulator } from '../../src/simulator/server.js';

/** Shared by the simulator's HTTP tests: one small account, and a client for its three doors. */

export const START = '2026-11-02T00:00:00Z';
export const START_MS = Date.parse(START);
export const KEY = 'sim-key';
export const READ_ONLY_KEY = 'sim-ro';
export const H100 = 'NVIDIA H100 80GB HBM3';
export const RTX4090 = 'NVIDIA GeForce RTX 4090';

export function baseScenario(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'shell-test',
    start: START,
    apiKey: KEY,
    readOnlyKey: READ_ONLY_KEY,
    catalog: {
      gpus: [
        { id: H100, name: 'H100 SXM', memory: 80, price: { secure: 2.99, community: 2.39 }, availability: 'HIGH' },
        { id: RTX4090, name: 'RTX 4090', memory: 24, price: { secure: 0.69, community: 0.34 }, availability: 'NONE' },
      ],
      dataCenters: [{ id: 'US-KS-2', name: 'US Kansas 2' }],
    },
    pods: [
      {
        id: 'pod-train-1',
        name: 'llama-finetune',
        gpu: { id: H100, count: 2 },
        cost: 5.98,
        status: 'RUNNING',
        startedAt: '-3h',
        dataCenterId: 'US-KS-2',
        env: { TEAM: 'research' },
        utilization: [{ at: '0s', gpus: [97, 40], memory: 81, cpu: 30 }],
      },
      { id: 'pod-note-1', name: 'notebook', gpu: { id: RTX4090, count: 1 }, cost: 0.69, status: 'EXITED' },
    ],
    ...extra,
  };
}

export interface TestSim {
  sim: Simulator;
  clock: VirtualClock;
  /** fetch() against the simulator with the full key unless `key` says otherwise (null: no header). */
  call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  graphql(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<Response>;
}

export async function startTestSim(extra: Record<string, unknown> = {}): Promise<TestSim> {
  const scenario = parseScenario(baseScenario(extra), 'test scenario');
  const clock = new VirtualClock(scenario.startMs);
  const sim = await startSimulator({ scenario, clock });
  const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const { key = KEY, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null) headers.set('Authorization', `Bearer ${key}`);
    if (rest.body !== undefined && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
    return fetch(`${sim.url}${path}`, { ...rest, headers });
  };
  const graphql = (query: string, variables?: Record<string, unknown>, key: string | null = KEY) =>
    call('/graphql', { method: 'POST', body: JSON.stringify({ query, variables }), key });
  return { sim, clock, call, graphql };
}

/** Resolves once `condition` holds, checking between event-loop turns (no wall-clock sleeps). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 10_000; turn++) {
    if (condition()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}
