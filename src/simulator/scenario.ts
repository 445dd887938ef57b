import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { normalizeScenario } from './scenario-normalize.js';
import { rawScenarioSchema } from './scenario-schema.js';
import type { AvailabilityLevel, Cloud, ClusterType, PodAction, PodStatus, VolumeType } from './v2-types.js';

/**
 * A scenario (SCENARIO.md) with every time made absolute (epoch ms) and every default filled,
 * so the world never has to interpret the file again.
 */
export interface Scenario {
  name: string;
  source: string;
  startMs: number;
  apiKey: string;
  readOnlyKey?: string;
  rateLimit?: { minute?: number; hour?: number; day?: number };
  /** How long a started Pod spends in PROVISIONING and then STARTING before RUNNING. */
  lifecycle: { provisioningMs: number; startingMs: number };
  catalog: { gpus: ScenarioGpuType[]; dataCenters: ScenarioDataCenter[]; cpus: ScenarioCpuType[] };
  /** Standalone Pods; cluster members live under `clusters[].pods`. */
  pods: ScenarioPod[];
  volumes: ScenarioVolume[];
  endpoints: ScenarioEndpoint[];
  clusters: ScenarioCluster[];
  faults: ScenarioFault[];
}

/** Piecewise constant: each value holds from its `atMs` until the next entry's. Sorted. */
export type Timeline<T> = Array<{ atMs: number; value: T }>;

export interface ScenarioGpuType {
  id: string;
  name: string;
  memory: number;
  manufacturer: 'NVIDIA' | 'AMD' | 'UNKNOWN';
  pool: string | null;
  price: { secure: number; community: number; serverless?: number };
  maxCount: { secure: number; community: number };
  availability: Timeline<AvailabilityLevel>;
  dataCenterIds: string[];
  cudaVersions: string[];
}

export interface ScenarioDataCenter {
  id: string;
  name: string;
  region: string;
  country: string;
  globalNetwork: boolean;
  networkVolumeTypes: VolumeType[];
  compliance: string[];
}

export interface ScenarioCpuType {
  id: string;
  name: string;
  group: string;
  vcpu: { min: number; max: number };
  ramGbPerVcpu: number;
  price: { securePerVcpu: number; serverlessPerVcpu: number };
  availability: AvailabilityLevel;
}

/** What a RUNNING Pod reports; null is a telemetry gap (RUNNING, runtime null). */
export interface Utilization {
  gpus: number[];
  gpuMemory: number[];
  cpu: number;
  memory: number;
}

export interface ScenarioPod {
  id: string;
  name: string;
  gpu?: { id: string; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  /** USD per hour while the Pod holds its machine. */
  cost: number;
  /** Status at `startMs`. */
  status: PodStatus;
  createdAtMs: number;
  startedAtMs?: number;
  stoppedAtMs?: number;
  dataCenterId: string | null;
  env: Record<string, string>;
  volumeGb?: number;
  networkVolumeId?: string;
  containerDiskGb: number;
  image: string;
  ports: string[];
  cloud: Cloud;
  locked: boolean;
  cudaVersion: string | null;
  template: string | null;
  utilization: Timeline<Utilization | null>;
  events: Array<{ atMs: number; action: PodAction }>;
  cluster?: { id: string; rank: number; role?: string };
}

export interface ScenarioVolume {
  id: string;
  name: string;
  size: number;
  dataCenter: string;
  type: VolumeType;
  createdAtMs: number;
}

export interface WorkerLoad {
  running: number;
  idle: number;
  initializing: number;
  throttled: number;
  unhealthy: number;
}

export interface ScenarioEndpoint {
  id: string;
  name: string;
  gpu?: { pools: string[]; count: number };
  cpu?: { id: string; vcpuCount: number; memory: number };
  workers: { min: number; max: number; idleTimeout: number };
  pricePerWorkerHour: number;
  /** Worker counts; before the first entry the endpoint has no workers. */
  load: Timeline<WorkerLoad>;
  dataCenterIds: string[];
  image: string;
  version: number;
  createdAtMs: number;
}

export interface ScenarioCluster {
  id: string;
  name: string;
  type: ClusterType;
  pods: ScenarioPod[];
  createdAtMs: number;
}

export interface ScenarioFault {
  fromMs: number;
  toMs: number;
  match: string;
  kind: 'status' | 'latency' | 'malformed' | 'reset';
  status?: number;
  ms?: number;
}

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

/** Reads a scenario file: `.json`, or `.yaml`/`.yml`. */
/** What a caller may change in a scenario as it is loaded. */
export interface ScenarioOverrides {
  /** Play the scenario from this instant instead of its `start` (e.g. wall-clock now). */
  startMs?: number;
}

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

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}
