import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { formatPath } from '../format.js';
import type { Scenario } from './scenario-normalize.js';
import { normalizeScenario } from './scenario-normalize.js';
import { rawScenarioSchema } from './scenario-schema.js';

export type { Catalog, Report, ScenarioCpuType, ScenarioDataCenter, ScenarioGpuType } from './scenario-catalog.js';
export type { Scenario, ScenarioCluster, ScenarioFault, ScenarioVolume } from './scenario-normalize.js';
export type { ScenarioEndpoint, ScenarioPod, Utilization, WorkerLoad } from './scenario-resources.js';
export type { Timeline } from './timeline.js';

export class ScenarioError extends Error {
  constructor(
    readonly source: string,
    readonly issues: string[],
  ) {
    super(`${source}: invalid scenario:\n${issues.map((issue) => `  - ${issue}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

/** Validates and normalizes a parsed scenario document; `source` names it in errors. */
export function parseScenario(raw: unknown, source: string, overrides: ScenarioOverrides = {}): Scenario {
  const parsed = rawScenarioSchema.safeParse(raw);
  if (!parsed.success) throw new ScenarioError(source, parsed.error.issues.flatMap(describeIssue));
  // Every time in a scenario is relative to its start, so moving the start moves the whole story.
  if (overrides.startMs !== undefined) parsed.data.start = overrides.startMs;
  const problems: string[] = [];
  const scenario = normalizeScenario(parsed.data, source, (path, message) => problems.push(`${path}: ${message}`));
  if (problems.length > 0) throw new ScenarioError(source, problems);
  return scenario;
}

/** What a caller may change in a scenario as it is loaded. */
export interface ScenarioOverrides {
  /** Play the scenario from this instant instead of its `start` (e.g. wall-clock now). */
  startMs?: number;
}

/** Reads a scenario file: `.json`, or `.yaml`/`.yml`. */
export function loadScenario(path: string, overrides: ScenarioOverrides = {}): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(path, [`cannot read file: ${(error as Error).message}`]);
  }
  const extension = extname(path).toLowerCase();
  let raw: unknown;
  try {
    if (extension === '.json') raw = JSON.parse(text);
    else if (extension === '.yaml' || extension === '.yml') raw = parseYaml(text);
    else throw new Error(`unknown extension "${extension}" (expected .json, .yaml or .yml)`);
  } catch (error) {
    throw new ScenarioError(path, [`cannot parse: ${(error as Error).message}`]);
  }
  return parseScenario(raw, path, overrides);
}

/** `pods[2].gpu.count: Too small: ...`; a union reports the branch that got furthest. */
function describeIssue(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const deepest = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
    return deepest.flatMap((inner) => describeIssue({ ...inner, path: [...issue.path, ...inner.path] }));
  }
  const missing = issue.code === 'invalid_type' && issue.message.endsWith('received undefined');
  const message = missing
    ? `required (${issue.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')})`
    : issue.message;
  return [`${formatPath(issue.path) || '(top level)'}: ${message}`];
}

function depth(issues: z.core.$ZodIssue[]): number {
  return Math.max(0, ...issues.map((issue) => issue.path.length));
}
