import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packagePath } from '../../src/package-root.js';
import { loadScenario, parseScenario, ScenarioError } from '../../src/simulator/scenario.js';
import { catalog, H100, HOUR, MINUTE, START, START_MS } from './world-fixtures.js';

const EXAMPLE = packagePath('test/simulator/fixtures/scenario-md-example.yaml');

function problemsOf(raw: unknown): string[] {
  try {
    parseScenario(raw, 'bad.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as Error).message).toMatch(/^bad\.yaml: invalid scenario:/);
    return (error as ScenarioError).issues;
  }
  throw new Error('expected the scenario to be rejected');
}

const minimal = { name: 'x', start: START, apiKey: 'k', catalog: catalog() };

describe('scenario: the SCENARIO.md example', () => {
  it('is the example block of SCENARIO.md, verbatim (when the team docs are present)', () => {
    const doc = '/work/shared/SCENARIO.md';
    if (!existsSync(doc)) return;
    const block = readFileSync(doc, 'utf8').split('```yaml\n')[1]?.split('```')[0];
    expect(readFileSync(EXAMPLE, 'utf8')).toBe(block);
  });

  it('loads with every field, times made absolute', () => {
    const scenario = loadScenario(EXAMPLE);
    expect(scenario).toMatchObject({
      name: 'small-team',
      startMs: START_MS,
      apiKey: 'sim-key',
      readOnlyKey: 'sim-ro',
      rateLimit: { minute: 600, hour: 20000, day: 200000 },
    });
    const [gpu] = scenario.catalog.gpus;
    expect(gpu).toMatchObject({ id: H100, name: 'H100 SXM', memory: 80, price: { secure: 2.99, community: 2.39 } });
    expect(gpu?.availability).toEqual([{ atMs: START_MS, value: 'HIGH' }]);
    expect(scenario.catalog.dataCenters).toMatchObject([{ id: 'US-KS-2', name: 'US Kansas 2' }]);

    const [pod] = scenario.pods;
    expect(pod).toMatchObject({
      id: 'pod-train-1',
      gpu: { id: H100, count: 2 },
      cost: 5.98,
      status: 'RUNNING',
      startedAtMs: START_MS - 3 * HOUR,
      dataCenterId: 'US-KS-2',
      env: { TEAM: 'research' },
      volumeGb: 100,
      events: [{ atMs: START_MS + 12 * HOUR, action: 'stop' }],
    });
    expect(pod?.utilization).toEqual([
      { atMs: START_MS, value: { gpus: [97, 97], gpuMemory: [81, 81], cpu: 0, memory: 81 } },
      { atMs: START_MS + 4 * HOUR, value: { gpus: [0, 3], gpuMemory: [70, 70], cpu: 0, memory: 70 } },
      { atMs: START_MS + 9 * HOUR, value: null },
    ]);
    expect(scenario.volumes).toEqual([
      { id: 'vol-1', name: 'datasets', size: 500, dataCenter: 'US-KS-2', type: 'STANDARD', createdAtMs: START_MS },
    ]);
    expect(scenario.endpoints[0]).toMatchObject({
      id: 'ep-1',
      gpu: { pools: ['ADA_24'], count: 1 },
      workers: { min: 1, max: 3 },
      pricePerWorkerHour: 0.69,
    });
    expect(scenario.endpoints[0]?.load.map((entry) => entry.atMs)).toEqual([START_MS, START_MS + 2 * HOUR]);
    expect(scenario.clusters).toEqual([]);
    expect(scenario.faults).toEqual([
      {
        fromMs: START_MS + 2 * HOUR,
        toMs: START_MS + 2 * HOUR + 10 * MINUTE,
        match: '/v2/pods',
        kind: 'status',
        status: 503,
      },
      { fromMs: START_MS + 5 * HOUR, toMs: START_MS + 5 * HOUR + 5 * MINUTE, match: '/v2/', kind: 'latency', ms: 3000 },
      { fromMs: START_MS + 7 * HOUR, toMs: START_MS + 7 * HOUR + MINUTE, match: '/v2/billing', kind: 'malformed' },
      { fromMs: START_MS + 8 * HOUR, toMs: START_MS + 8 * HOUR + 2 * MINUTE, match: '/v2/', kind: 'reset' },
      { fromMs: START_MS, toMs: START_MS + 30 * 24 * HOUR, match: '/graphql', kind: 'status', status: 410 },
    ]);
  });

  it('reads the same scenario from JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    const file = join(dir, 'example.json');
    writeFileSync(file, JSON.stringify(parseYaml(readFileSync(EXAMPLE, 'utf8'))));
    expect(loadScenario(file)).toEqual({ ...loadScenario(EXAMPLE), source: file });
  });
});

describe('scenario: forwards compatibility', () => {
  it('accepts fields it does not know, at every level', () => {
    const scenario = parseScenario(
      { ...minimal, owner: 'ml-team', pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, cost: 1, colour: 'blue' }] },
      'x',
    );
    expect(scenario.pods[0]?.id).toBe('p');
  });

  it('fills defaults: status RUNNING, cost from the catalog price for the cloud', () => {
    const scenario = parseScenario(
      { ...minimal, pods: [{ id: 'p', name: 'p', gpu: { id: H100, count: 2 }, cloud: 'COMMUNITY' }] },
      'x',
    );
    expect(scenario.pods[0]).toMatchObject({ status: 'RUNNING', cost: 4.78, startedAtMs: START_MS });
  });

  it('expands repeating entries (every … until) into the timeline', () => {
    const scenario = parseScenario(
      {
        ...minimal,
        pods: [
          {
            id: 'p',
            name: 'p',
            gpu: { id: H100 },
            utilization: [
              { at: '0s', gpu: 90, every: '1h', until: '3h' },
              { at: '55m', gpu: 0, every: '1h', until: '3h' },
            ],
          },
        ],
      },
      'x',
    );
    const offsets = scenario.pods[0]?.utilization.map((entry) => (entry.atMs - START_MS) / MINUTE);
    expect(offsets).toEqual([0, 55, 60, 115, 120, 175]);
  });
});

describe('scenario: bad input is rejected with the field path', () => {
  it('names a missing required field, and a misspelling of it', () => {
    const issues = problemsOf({ nmae: 'x', start: START, apiKey: 'k' });
    expect(issues).toContain('name: required (expected string)');
    expect(issues).toContain('nmae: unknown field "nmae" (did you mean "name"?)');
  });

  it('rejects a misspelled optional field instead of dropping it', () => {
    const issues = problemsOf({ ...minimal, pods: [{ id: 'p', name: 'p', gpu: { id: H100 }, utilisation: [] }] });
    expect(issues).toEqual(['pods[0].utilisation: unknown field "utilisation" (did you mean "utilization"?)']);
  });

  it('explains bad values: durations, times, enums, ranges', () => {
    const issues = problemsOf({
      ...minimal,
      start: '2 Nov 2026',
      pods: [
        {
          id: 'p',
          name: 'p',
          gpu: { id: H100, count: 0 },
          status: 'SLEEPING',
          utilization: [{ at: 'soon', gpu: 120 }],
        },
      ],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^start: expected an RFC 3339 time/),
        expect.stringMatching(/^pods\[0\]\.gpu\.count: Too small/),
        expect.stringMatching(/^pods\[0\]\.status: Invalid option: expected one of "PROVISIONING"/),
        'pods[0].utilization[0].at: invalid duration "soon" (expected e.g. 90s, 30m, 6h, 2d, 1h30m)',
        expect.stringMatching(/^pods\[0\]\.utilization\[0\]\.gpu: Too big/),
      ]),
    );
  });

  it('checks references and consistency after the shape', () => {
    const issues = problemsOf({
      ...minimal,
      pods: [
        { id: 'p', name: 'p', gpu: { id: 'NVIDIA B9000' } },
        {
          id: 'p',
          name: 'twice',
          gpu: { id: H100, count: 2 },
          startedAt: '1h',
          dataCenterId: 'MARS-1',
          utilization: [{ at: '0s', gpus: [1, 2, 3] }],
          events: [{ at: '-1h', action: 'stop' }],
        },
      ],
      faults: [{ from: '2h', to: '1h', match: '/v2/', kind: 'status' }],
    });
    expect(issues).toEqual([
      'pods[0].gpu.id: unknown GPU type "NVIDIA B9000" (add it to catalog.gpus)',
      'pods[1].dataCenterId: unknown data center "MARS-1" (add it to catalog.dataCenters)',
      'pods[1].startedAt: a Pod RUNNING at start was started at or before start (0s or negative)',
      'pods[1].utilization[0].gpus: has 3 values for 2 GPUs',
      'pods[1].events[0].at: events happen from start on (describe the past with status, startedAt, stoppedAt)',
      'pod id: duplicate pod id "p"',
      'faults[0].to: must be after from',
      'faults[0].status: required for kind "status"',
    ]);
  });

  it('names the file when it cannot be read or parsed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scenario-'));
    expect(() => loadScenario(join(dir, 'missing.yaml'))).toThrow(
      /missing\.yaml: invalid scenario:\n {2}- cannot read file/,
    );
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'name: [unclosed');
    expect(() => loadScenario(broken)).toThrow(/broken\.yaml: invalid scenario:\n {2}- cannot parse/);
    const text = join(dir, 'scenario.txt');
    writeFileSync(text, 'name: x');
    expect(() => loadScenario(text)).toThrow(/unknown extension "\.txt"/);
  });
});

describe('a scenario played from another start', () => {
  it('moves every time with the start, so the story keeps its shape (sim --start now)', () => {
    const demo = packagePath('config/scenarios/demo.yaml');
    const own = loadScenario(demo);
    const shift = 17 * 24 * 3_600_000 + 123_000;
    const moved = loadScenario(demo, { startMs: own.startMs + shift });
    expect(moved.startMs).toBe(own.startMs + shift);
    expect(moved.pods.map((pod) => pod.createdAtMs - moved.startMs)).toEqual(
      own.pods.map((pod) => pod.createdAtMs - own.startMs),
    );
    expect(moved.pods.map((pod) => pod.id)).toEqual(own.pods.map((pod) => pod.id));
  });
});
