import type { Scenario, ScenarioPod } from './scenario.js';
import { indexAt, type Timeline, valueAt } from './timeline.js';
import type { PodAction, PodStatus } from './v2-types.js';

/** The statuses in which a Pod holds its machine: it reports a non-zero `cost` and is billed. */
export const MACHINE_HELD: ReadonlySet<PodStatus> = new Set(['PROVISIONING', 'STARTING', 'RUNNING']);

const TRANSITIONS: Record<PodStatus, PodAction[]> = {
  RUNNING: ['stop', 'restart', 'terminate'],
  EXITED: ['start', 'terminate'],
  ERROR: ['start', 'terminate'],
  PROVISIONING: ['stop', 'terminate'],
  STARTING: ['stop', 'terminate'],
  TERMINATED: [],
};

/** The v2 `actions` field: the transitions valid now. A locked Pod cannot be stopped or restarted. */
export function validActions(status: PodStatus, locked: boolean): PodAction[] {
  const actions = TRANSITIONS[status];
  return locked ? actions.filter((action) => action !== 'stop' && action !== 'restart') : actions;
}

export type ActionOutcome = { ok: true } | { ok: false; detail: string };

/**
 * A Pod's status over time. Transitions that a start sets in motion (PROVISIONING → STARTING →
 * RUNNING) are written ahead as future entries; a later action cuts them off. Entries before
 * the world's present are never rewritten, which is what keeps billing of the past stable.
 */
export class PodLifecycle {
  readonly history: Timeline<PodStatus> = [];

  constructor(
    private readonly pod: ScenarioPod,
    startMs: number,
    private readonly timings: Scenario['lifecycle'],
  ) {
    const { createdAtMs, startedAtMs, stoppedAtMs, status } = pod;
    // A Pod that never boots has been trying to since it was created.
    const bootAt = pod.stuck === undefined ? startMs : createdAtMs;
    const firstActive = status === 'RUNNING' ? startedAtMs : stoppedAtMs === undefined ? bootAt : startedAtMs;
    if (firstActive !== undefined && createdAtMs < firstActive)
      this.history.push({ atMs: createdAtMs, value: 'EXITED' });
    if (status === 'RUNNING') {
      this.set(startedAtMs ?? startMs, 'RUNNING');
    } else if (status === 'PROVISIONING') {
      this.boot(bootAt);
    } else if (status === 'STARTING') {
      this.set(bootAt, 'STARTING');
      if (pod.stuck === undefined) this.set(bootAt + timings.startingMs, 'RUNNING');
    } else if (startedAtMs !== undefined && stoppedAtMs !== undefined) {
      this.set(startedAtMs, 'RUNNING');
      this.set(stoppedAtMs, status);
    } else {
      this.set(Math.min(createdAtMs, startMs), status);
    }
  }

  statusAt(t: number): PodStatus {
    return valueAt(this.history, t, 'EXITED');
  }

  existsAt(t: number): boolean {
    return t >= this.pod.createdAtMs && this.statusAt(t) !== 'TERMINATED';
  }

  /** When the container now RUNNING started (restart starts a new one); undefined if not RUNNING. */
  runningSince(t: number): number | undefined {
    const index = indexAt(this.history, t);
    const entry = this.history[index];
    return entry?.value === 'RUNNING' ? entry.atMs : undefined;
  }

  /** The v2 `startedAt`: when the Pod last reached RUNNING, or what the scenario said. */
  lastStartedAt(t: number): number | null {
    for (let index = indexAt(this.history, t); index >= 0; index--) {
      const entry = this.history[index] as { atMs: number; value: PodStatus };
      if (entry.value === 'RUNNING') return entry.atMs;
    }
    return this.pod.startedAtMs ?? null;
  }

  apply(action: PodAction, t: number): ActionOutcome {
    const status = this.statusAt(t);
    if (!validActions(status, this.pod.locked).includes(action)) {
      if (this.pod.locked && TRANSITIONS[status].includes(action)) {
        return { ok: false, detail: `pod ${this.pod.id} is locked: it cannot be stopped or restarted` };
      }
      const valid = TRANSITIONS[status].join(', ') || 'none';
      return {
        ok: false,
        detail: `cannot ${action} pod ${this.pod.id} while it is ${status} (valid actions: ${valid})`,
      };
    }
    if (action === 'start') this.boot(t);
    else if (action === 'stop') this.set(t, 'EXITED');
    else if (action === 'terminate') this.set(t, 'TERMINATED');
    else {
      this.set(t, 'STARTING');
      if (this.pod.stuck === undefined) this.set(t + this.timings.startingMs, 'RUNNING');
    }
    return { ok: true };
  }

  /** PROVISIONING, then STARTING, then RUNNING; a stuck Pod stays where it is stuck, billed. */
  private boot(t: number): void {
    const { provisioningMs, startingMs } = this.timings;
    this.set(t, 'PROVISIONING');
    if (this.pod.stuck === 'PROVISIONING') return;
    this.set(t + provisioningMs, 'STARTING');
    if (this.pod.stuck === 'STARTING') return;
    this.set(t + provisioningMs + startingMs, 'RUNNING');
  }

  /** From `t` on the Pod is `status`: whatever was planned after `t` no longer happens. */
  private set(t: number, status: PodStatus): void {
    while (this.history.length > 0 && (this.history[this.history.length - 1] as { atMs: number }).atMs >= t) {
      this.history.pop();
    }
    this.history.push({ atMs: t, value: status });
  }
}
