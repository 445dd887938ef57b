import { describe, expect, it } from 'vitest';
import { COLLECTOR_NAMES } from '../../src/collectors/collector.js';
import { parseDuration } from '../../src/duration.js';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { replay } from '../../src/replay/replay.js';
import { loadScenario, parseScenario } from '../../src/simulator/scenario.js';

const smallTeam = () => loadScenario(packagePath('config/scenarios/small-team.yaml'));

function tinyScenario(extra: Record<string, unknown> = {}) {
  return parseScenario(
    {
      name: 'tiny',
      start: '2026-11-02T00:00:00Z',
      apiKey: 'sim-key',
      catalog: {
        gpus: [
          {
            id: 'NVIDIA L40S',
            name: 'L40S',
            memory: 48,
            price: { secure: 0.86, community: 0.79 },
            availability: 'HIGH',
          },
        ],
      },
      pods: [
        {
          id: 'pod-a',
          name: 'a',
          gpu: { id: 'NVIDIA L40S', count: 1 },
          cost: 0.86,
          status: 'RUNNING',
          startedAt: '-1h',
          utilization: [{ at: '0s', gpu: 50, memory: 40 }],
          events: [{ at: '20m', action: 'stop' }],
        },
        {
          id: 'pod-b',
          name: 'b',
          gpu: { id: 'NVIDIA L40S', count: 1 },
          cost: 0.86,
          status: 'RUNNING',
          startedAt: '-1h',
          utilization: [{ at: '0s', gpu: 50, memory: 40 }],
          events: [{ at: '10m', action: 'terminate' }],
        },
      ],
      volumes: [{ id: 'vol-1', name: 'data', size: 100, dataCenter: 'US-KS-2', type: 'STANDARD' }],
      ...extra,
    },
    'tiny',
  );
}

describe('replay (podwarden simulate)', () => {
  it('reports the SCENARIO.md fields: span, api counts and Pod outcomes', async () => {
    const report = await replay({ scenario: tinyScenario(), durationMs: parseDuration('1h'), log: silentLogger() });
    expect(report.scenario).toBe('tiny');
    expect(report.virtualStart).toBe('2026-11-02T00:00:00Z');
    expect(report.virtualEnd).toBe('2026-11-02T01:00:00Z');
    expect(report.pods).toEqual([
      { id: 'pod-a', finalStatus: 'EXITED' },
      { id: 'pod-b', finalStatus: 'TERMINATED' },
    ]);
    expect(report.api.requests).toBeGreaterThan(60);
    expect(report.api.status5xx).toBe(0);
    expect(report.collectors.pods?.ok).toBe(61);
    for (const [name, tally] of Object.entries(report.collectors)) expect(tally.error, name).toBe(0);
    expect(Array.isArray(report.stops) && Array.isArray(report.alerts) && Array.isArray(report.emails)).toBe(true);
  });

  it('keeps collecting everything v2 provides when GraphQL is retired', async () => {
    const scenario = tinyScenario({
      faults: [{ from: '0s', to: '30d', match: '/graphql', kind: 'status', status: 410 }],
    });
    const report = await replay({ scenario, durationMs: parseDuration('30m'), log: silentLogger() });
    expect(report.collectors.stock?.ok).toBe(0);
    expect(report.collectors.stock?.no_data).toBeGreaterThan(0);
    for (const name of COLLECTOR_NAMES.filter((name) => name !== 'stock')) {
      expect(report.collectors[name]?.ok, name).toBeGreaterThan(0);
      expect(report.collectors[name]?.error, name).toBe(0);
    }
  });

  it('slows down under a tight rate limit instead of failing, and meets no 429 in steady state', async () => {
    const scenario = tinyScenario({ rateLimit: { minute: 12, hour: 600, day: 10000 } });
    const report = await replay({ scenario, durationMs: parseDuration('2h'), log: silentLogger() });
    expect(report.api.status429).toBe(0);
    expect(report.collectors.pods?.ok).toBeGreaterThan(100);
    for (const [name, tally] of Object.entries(report.collectors)) expect(tally.error, name).toBe(0);
  });

  it('survives the small-team faults (5xx bursts, malformed bodies, resets, latency)', async () => {
    const report = await replay({ scenario: smallTeam(), durationMs: parseDuration('16h'), log: silentLogger() });
    expect(report.api.status5xx).toBeGreaterThan(0);
    expect(report.api.resets).toBeGreaterThan(0);
    // Retries absorb short faults: most runs succeed, and every collector succeeds after them.
    const pods = report.collectors.pods;
    expect(pods?.ok).toBeGreaterThan(900);
    expect(report.pods.find((p) => p.id === 'train-mi300x')?.finalStatus).toBe('RUNNING');
  }, 300_000);
});
