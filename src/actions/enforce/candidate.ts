import type { PodRecord } from '../../db/pods.js';
import type { EnforceKind } from '../../db/tables/enforce.js';
import type { BudgetInputs } from '../../rules/budget.js';
import type { Finding } from '../../rules/finding.js';
import type { ActionContext } from '../context.js';

/**
 * A Pod a control wants stopped: why, when, and how far ahead it must be warned. The enforcement
 * ladder (ladder.ts) owns everything after: the episode, the warning, the guards, the stop, the
 * receipts. A control only says what it wants; it never stops anything itself.
 */
export interface StopCandidate {
  pod: PodRecord;
  kind: EnforceKind;
  /**
   * What makes this spell unique for its kind, as epoch ms: the Pod's last start (a deadline),
   * the later of the window's start and the Pod's last start (a schedule), the budget period's
   * start (a cap). One episode per (account, Pod, kind, occurrence): a new occurrence is a new
   * warning and a new stop; the same occurrence never acts twice.
   */
  occurrence: number;
  /** When the stop is due (before any Keep running extension); may be past (a Pod started inside a window). */
  stopAt: number;
  /** The warning goes out this long before `stopAt`, and the stop waits this long after the warning was delivered. */
  warnLeadMs: number;
  dryRun: boolean;
  /** The control's config name (deadline, schedule or budget name): receipts and alerts carry it. */
  control: string;
  /** One line a person reads: "ran 12h of its 12h maximum runtime", "off-hours from 20:00 (Europe/Paris)". */
  why: string;
  /** Why the Pod must not be stopped by this control (its exclusions, PODWARDEN_IGNORE), or null. */
  excluded: string | null;
  /** How much later a Keep running link moves the stop; null: this kind offers no extension (snooze links only). */
  extendByMs: number | null;
}

/** The tick as the enforcement ladder gets it: the action context and what the budget rule reads. */
export interface EnforceContext extends ActionContext {
  budgets: BudgetInputs;
}

/**
 * What a control reads: the tick's config, `now`, snapshots and budget inputs. Pure: the same
 * tick gives the same candidates.
 */
export type ControlInput = Pick<EnforceContext, 'config' | 'now' | 'snapshots' | 'budgets'>;

/**
 * A source of stop candidates. Register it in controls.ts; the ladder runs every registered
 * control each tick, per account.
 */
export interface EnforceControl {
  readonly kind: EnforceKind;
  /** Whether the configuration gives it anything to do (none enabled: the ladder reads nothing). */
  enabled(config: ControlInput['config']): boolean;
  /**
   * The account's candidates at `input.now`, at most one per Pod (the first control entry that
   * selects it), and findings about what it could not use (a Pod's unreadable env value).
   */
  candidates(input: ControlInput, account: string): ControlOutput;
}

export interface ControlOutput {
  candidates: StopCandidate[];
  findings: Finding[];
}
