import type { ScheduleConfig } from '../../config/sections/enforce.js';
import type { PodRecord } from '../../db/pods.js';
import { formatDateTime } from '../../format.js';
import { type Window, windowNear } from '../../rules/off-hours.js';
import type { ControlOutput, EnforceControl, StopCandidate } from './candidate.js';
import { ownershipOf } from './ownership.js';
import { exclusionFor, matchesPod } from './select.js';

/**
 * Off-hours schedules: a Pod selected by a schedule is warned its lead time before a window opens
 * and stopped when it opens. A Pod started inside a window (by its owner, say) is warned then and
 * stopped the lead time after the warning: its start is the occurrence, so it is a new spell, and
 * its stop is already due. Pods are not started again when a window closes.
 */
export const scheduleControl: EnforceControl = {
  kind: 'schedule',
  enabled: (config) => config.enforce.schedules.length > 0,
  candidates(input, account): ControlOutput {
    const output: ControlOutput = { candidates: [], findings: [] };
    const snapshot = input.snapshots.get(account);
    if (!snapshot) return output;
    const { schedules } = input.config.enforce;
    const byOwner = schedules.some((s) => s.match.team.length + s.match.owner.length > 0);
    // One window per schedule this tick, whichever Pods it covers.
    const windows = new Map(schedules.map((s) => [s.name, windowNear(s, input.now, s.warnLeadMs)]));
    for (const pod of snapshot.pods) {
      if (pod.status !== 'RUNNING') continue;
      const ownership = byOwner ? ownershipOf(input.config, pod) : { owner: null, team: null };
      const schedule = schedules.find((s) => matchesPod(s.match, pod, ownership));
      const window = schedule && windows.get(schedule.name);
      if (schedule && window) output.candidates.push(candidate(pod, schedule, window));
    }
    return output;
  },
};

function candidate(pod: PodRecord, schedule: ScheduleConfig, window: Window): StopCandidate {
  // Started inside the window: a spell of its own, its stop due at once (after the warning's lead).
  const startedInside = pod.startedAt !== null && pod.startedAt > window.start;
  const occurrence = startedInside ? (pod.startedAt as number) : window.start;
  const zone = schedule.timeZone;
  const span = `off-hours from ${formatDateTime(window.start, zone)} to ${formatDateTime(window.end, zone)}`;
  return {
    pod,
    kind: 'schedule',
    occurrence,
    stopAt: occurrence,
    warnLeadMs: schedule.warnLeadMs,
    dryRun: schedule.dryRun,
    control: schedule.name,
    why: startedInside ? `started inside its ${span}` : span,
    excluded: exclusionFor(schedule, 'schedule', pod),
    extendByMs: null,
  };
}
