import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { World } from '../../src/simulator/world.js';
import { HOUR, MINUTE } from './world-fixtures.js';

const scenarioPath = (name: string) => packagePath('config/scenarios', name);

describe('bundled scenario: demo', () => {
  const scenario = loadScenario(scenarioPath('demo.yaml'));
  const at = (minutes: number) => scenario.startMs + minutes * MINUTE;
  const dayStart = Date.UTC(2026, 10, 2);

  it("today's spend crosses $100 about two minutes in", () => {
    const world = new World(scenario);
    const today = (minutes: number) => world.accrued(at(minutes), { kind: 'all', fromMs: dayStart, toMs: at(minutes) });
    expect(today(1).totalAmount).toBeLessThan(100);
    expect(today(3).totalAmount).toBeGreaterThan(100);
  });

  it("the notebook's GPU goes idle two minutes in", () => {
    const world = new World(scenario);
    expect(world.podView('nb-demo', at(1))?.runtime?.gpus[0]?.util).toBeGreaterThan(0);
    expect(world.podView('nb-demo', at(2))?.runtime?.gpus[0]?.util).toBe(0);
  });

  it('the H200 comes back in stock three minutes in', () => {
    const world = new World(scenario);
    const gpu = world.scenario.catalog.gpus.find((candidate) => candidate.id === 'NVIDIA H200');
    const h200 = (minutes: number) => gpu && world.availabilityOf(gpu, at(minutes));
    expect([h200(0), h200(2), h200(3)]).toEqual(['NONE', 'NONE', 'HIGH']);
  });
});

describe('bundled scenario: small-team', () => {
  const scenario = loadScenario(scenarioPath('small-team.yaml'));

  it('is a day of a dozen Pods, volumes, two endpoints, a cluster and faults', () => {
    expect(scenario.pods).toHaveLength(12);
    expect(scenario.volumes).toHaveLength(2);
    expect(scenario.endpoints).toHaveLength(2);
    expect(scenario.clusters).toHaveLength(1);
    expect(new Set(scenario.faults.map((fault) => fault.kind))).toEqual(
      new Set(['status', 'malformed', 'reset', 'latency']),
    );
  });

  it('plays through the day: owners stop, start and terminate Pods; no event is out of place', () => {
    const world = new World(scenario);
    expect(world.podStatuses(scenario.startMs + 24 * HOUR)).toMatchObject({
      'train-llama-70b': 'EXITED',
      'train-mi300x': 'EXITED',
      'nb-bob': 'EXITED',
      'dev-box': 'TERMINATED',
      'cl-pretrain-0': 'TERMINATED',
      'infer-vllm-1': 'RUNNING',
    });
    expect(world.skippedEvents).toEqual([]);
  });

  it('training dips to 0% for its checkpoint every hour; telemetry has gaps', () => {
    const world = new World(scenario);
    const util = (hours: number, minutes: number) =>
      world.podView('train-llama-70b', scenario.startMs + hours * HOUR + minutes * MINUTE)?.runtime?.gpus[0]?.util;
    expect([util(3, 54), util(3, 56), util(4, 1)]).toEqual([97, 0, 97]);
    const gap = world.podView('infer-vllm-2', scenario.startMs + 14 * HOUR + 5 * MINUTE);
    expect(gap).toMatchObject({ status: 'RUNNING', runtime: null });
  });
});

describe('bundled scenario: large', () => {
  it('has 2,000 Pods (200 in clusters), 300 endpoints, 500 volumes, 40 GPU types', () => {
    const scenario = loadScenario(scenarioPath('large.json'));
    const clusterPods = scenario.clusters.flatMap((cluster) => cluster.pods);
    expect(scenario.pods.length + clusterPods.length).toBe(2000);
    expect(clusterPods).toHaveLength(200);
    expect(scenario.endpoints).toHaveLength(300);
    expect(scenario.volumes).toHaveLength(500);
    expect(scenario.catalog.gpus).toHaveLength(40);
    const world = new World(scenario);
    expect(world.podsView(scenario.startMs, { includeClusterPods: true }).length).toBeGreaterThan(1500);
  });

  it('is exactly what the generator writes with its fixed seed', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'large-')), 'large.json');
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', packagePath('scripts/generate-large-scenario.ts'), '--out', out],
      { encoding: 'utf8' },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(scenarioPath('large.json'), 'utf8'));
  });
});
