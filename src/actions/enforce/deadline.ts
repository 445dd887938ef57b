import type { DeadlineConfig } from '../../config/sections/enforce.js';
import type { PodRecord } from '../../db/pods.js';
import { DurationError, formatDuration, parseDuration } from '../../duration.js';
import type { Finding } from '../../rules/finding.js';
import type { ControlOutput, EnforceControl, StopCandidate } from './candidate.js';
import { ownershipOf } from './ownership.js';
import { exclusionFor, matchesPod } from './select.js';

/** The env key a Pod sets its own maximum runtime with (`12h`, `90m`, `1d`); it wins over the configured deadlines. */
export const MAX_RUNTIME_ENV = 'PODWARDEN_MAX_RUNTIME';

/** The control name of deadlines a Pod sets with its env key. */
export const ENV_DEADLINE = 'env';

/**
 * Deadlines: a maximum runtime counted from the Pod's last start, from its env key or the first
 * configured deadline that selects it; no deadline by default. The occurrence is the start, so a
 * restarted Pod gets a deadline of its own, and Keep running moves this run's deadline only.
 */
export const deadlineControl: EnforceControl = {
  kind: 'deadline',
  // The env key needs no configuration: any Pod may set it.
  enabled: () => true,
  candidates(input, account): ControlOutput {
    const snapshot = input.snapshots.get(account);
    const output: ControlOutput = { candidates: [], findings: [] };
    if (!snapshot) return output;
    const { deadlines, envDeadline } = input.config.enforce;
    for (const pod of snapshot.pods) {
      // Unknown start, unknown runtime: never a stop on doubt.
      if (pod.status !== 'RUNNING' || pod.startedAt === null) continue;
      const own = pod.env[MAX_RUNTIME_ENV];
      if (own !== undefined) {
        const maxRuntimeMs = envRuntime(own);
        if (maxRuntimeMs === undefined) {
          output.findings.push(badEnvFinding(account, pod, own));
        } else {
          const settings = { name: ENV_DEADLINE, exclude: { podIds: [], names: [] }, ...envDeadline, maxRuntimeMs };
          output.candidates.push(candidate(pod, settings, `${MAX_RUNTIME_ENV}=${own.trim()}`));
          continue;
        }
      }
      const ownership = deadlines.some((d) => d.match.team.length + d.match.owner.length > 0)
        ? ownershipOf(input.config, pod)
        : { owner: null, team: null };
      const deadline = deadlines.find((d) => matchesPod(d.match, pod, ownership));
      if (deadline)
        output.candidates.push(candidate(pod, deadline, `maximum runtime ${formatDuration(deadline.maxRuntimeMs)}`));
    }
    return output;
  },
};

type DeadlineSettings = Pick<
  DeadlineConfig,
  'name' | 'exclude' | 'maxRuntimeMs' | 'warnLeadMs' | 'extendByMs' | 'dryRun'
>;

function candidate(pod: PodRecord, d: DeadlineSettings, limit: string): StopCandidate {
  const startedAt = pod.startedAt as number;
  return {
    pod,
    kind: 'deadline',
    occurrence: startedAt,
    stopAt: startedAt + d.maxRuntimeMs,
    warnLeadMs: d.warnLeadMs,
    dryRun: d.dryRun,
    control: d.name,
    why: limit,
    excluded: exclusionFor(d, 'deadline', pod),
    extendByMs: d.extendByMs,
  };
}

/** The env value as a positive duration, or undefined when it is not one. */
function envRuntime(value: string): number | undefined {
  try {
    const ms = parseDuration(value);
    return ms > 0 ? ms : undefined;
  } catch (error) {
    if (error instanceof DurationError) return undefined;
    throw error;
  }
}

/** A Pod's env key that is not a duration: said once per Pod, and no deadline of its own applies. */
function badEnvFinding(account: string, pod: PodRecord, value: string): Finding {
  const name = pod.name === pod.podId ? pod.podId : `${pod.name} (${pod.podId})`;
  return {
    rule: 'enforce',
    key: `enforce:${account}:${pod.podId}:deadline:bad-env`,
    account,
    severity: 'warning',
    summary: `Pod ${name}: env ${MAX_RUNTIME_ENV}="${value}" is not a duration (expected e.g. 12h, 90m, 1d): its own deadline is ignored`,
    labels: { rule: 'enforce', account, pod_id: pod.podId, pod_name: pod.name, kind: 'deadline', stage: 'bad-env' },
    details: { kind: 'enforce-bad-env', podId: pod.podId, podName: pod.name, value },
  };
}
