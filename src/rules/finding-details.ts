/**
 * The data contract between findings and messages: what each finding carries in `details`, as
 * raw figures (USD, epoch ms, durations in ms, ratios 0–1, utilization in percent). Messages
 * format them (src/messages/); nothing here is a sentence. Each shape has a `kind`, so a message
 * can tell them apart after a round trip through the database, and falls back to the summary
 * for details written by an older podwarden.
 *
 * These are `type` aliases, not interfaces, so they stay assignable to `Record<string, unknown>`
 * (the stored column's type).
 */
import type { BudgetFigure } from '../config/sections/budgets.js';
import type { BudgetStatus, CostDriver } from './budget-status.js';
import type { IdleCluster } from './idle.js';

/** A cost driver as an alert stores it: the account is the alert's. */
export type CostDriverDetail = Omit<CostDriver, 'account'>;

/** The figures that say what has been spent (forecast says where spending is heading). */
export type SpentFigure = Exclude<BudgetFigure, 'forecast'>;

/**
 * What a budget alert is about: `spent` (billed and live spend, one alert) or `forecast`; details
 * written by an older podwarden may say `actual` or `live`, one alert each.
 */
export type BudgetAlertFigure = 'spent' | BudgetFigure;

/** The figures of a budget's status an alert stores, rounded to cents (rates to 1/100 cent). */
type StoredStatus = 'budget' | 'scope' | 'amount' | 'timeZone' | 'actual' | 'live' | 'currentPerHour';

export type BudgetDetails = Pick<BudgetStatus, StoredStatus | 'forecastAtCurrentRate' | 'runsOutAt' | 'evaluatedAt'> & {
  kind: 'budget';
  figure: BudgetAlertFigure;
  threshold: number;
  /** The figure's value: for `spent`, the highest of the figures that reached the threshold. */
  value: number;
  /** For `spent`: the configured figures that reached the threshold (billed, live or both). */
  crossed?: SpentFigure[];
  period: { kind: BudgetStatus['periodKind'] } & BudgetStatus['period'];
  /** The forecast at the trailing average: null until enough history is known. */
  trailing: { perHour: number; windowMs: number; forecast: number } | null;
  drivers: CostDriverDetail[];
};

/** One bucket per column of the sparkline: the busiest GPU's utilization, null when unknown. */
export type UtilizationDetail = {
  from: number;
  to: number;
  gpu: (number | null)[];
  memory: (number | null)[];
  /** A bucket at or below this (percent) counts as idle. */
  threshold: number;
};

export type IdleStage = 'idle' | 'held' | 'warn' | 'stop';

export type IdleDetails = {
  kind: 'idle';
  stage: IdleStage;
  podId: string;
  podName: string;
  gpuTypeId: string | null;
  gpuCount: number | null;
  idleRule: string;
  /** Why the Pod counts as idle, in the rule's words. */
  reason: string;
  /** Where the idle evidence starts: the window before the episode opened. */
  idleSince: number;
  evaluatedAt: number;
  costPerHr: number;
  /** What stopping saves per hour (cost minus the stopped volume disk). */
  savingPerHr: number;
  utilization: UtilizationDetail | null;
  /** When the ladder stops the Pod; null when this rule never stops. */
  stopAt: number | null;
  warnedAt: number | null;
  /**
   * How long after its warning reaches someone a Pod may be stopped (the rule's `warnLead`):
   * the stop waits that long after the SMTP server accepted the warning. Absent in alerts
   * stored before it was recorded.
   */
  warnLeadMs?: number;
  /** The Pod is locked in RunPod against stopping: podwarden never stops it. */
  locked?: boolean;
  /** When the stop was decided (stage `stop`). */
  decidedAt: number | null;
  dryRun: boolean;
};

export type IdleNotStoppedDetails = {
  kind: 'idle-not-stopped';
  why: 'scarce' | 'stop-failed';
  podId: string;
  podName: string;
  costPerHr: number;
  detail: string;
};

export type IdleBlastRadiusDetails = {
  kind: 'idle-blast-radius';
  idleRule: string;
  podIds: string[];
  detail: string;
};

export type IdleClusterDetails = { kind: 'idle-cluster' } & IdleCluster;

/**
 * An enforcement stop (deadline, schedule, budget cap) ahead or decided: stage `warn` until the
 * stop is decided, then `stop`; `not-stopped` when the stop request keeps failing.
 */
export type EnforceDetails = {
  kind: 'enforce';
  stage: 'warn' | 'stop' | 'not-stopped';
  enforceKind: 'deadline' | 'schedule' | 'budget_cap';
  /** The control's config name. */
  control: string;
  /** The control's one-line why. */
  why: string;
  podId: string;
  podName: string;
  gpuTypeId: string | null;
  gpuCount: number | null;
  costPerHr: number;
  savingPerHr: number;
  /** When the stop is due (Keep running extensions included). */
  stopAt: number;
  /** What Keep running links added so far. */
  extendedMs: number;
  /** What one Keep running link adds (a deadline's `extendBy`); null: the kind offers snooze links instead. */
  extendByMs: number | null;
  /** The spell's occurrence (a deadline's: the Pod's start): an extension link is good for this one only. */
  occurrence: number;
  warnedAt: number | null;
  warnLeadMs: number;
  locked: boolean;
  decidedAt: number | null;
  dryRun: boolean;
  evaluatedAt: number;
  /** Set with stage `not-stopped`: what went wrong. */
  detail?: string;
};

export type HealthDetails = {
  kind: 'health';
  check: 'idle-stops-frozen';
  collector: string;
  lastSuccessAt: number | null;
  limitMs: number;
  evaluatedAt: number;
};

export type CapacityDetails = {
  kind: 'capacity';
  event: 'rise' | 'fall' | 'price';
  gpuTypeId: string;
  gpuName: string;
  product: string;
  /** `all` for every data center together. */
  dataCenter: string;
  /** Availability levels (rise/fall) or USD per hour (price). */
  from: string | number;
  to: string | number;
  cloud: string | null;
  at: number;
  /**
   * USD per GPU per hour the catalog asks at the change (its row for the data center, or the
   * overall one), null where it gives none; absent in details of an older podwarden.
   */
  price?: { secure: number | null; community: number | null };
};

export type WasteDetails = {
  kind: 'waste';
  check: 'endpoint-idle' | 'volume-unmounted' | 'stopped-pod-volume' | 'stuck-starting';
  resourceId: string;
  resourceName: string;
  /** Since when it has been wasting. */
  since: number;
  /** True when `since` is only the earliest time the stored history can vouch for: "over 2d". */
  sinceIsLowerBound: boolean;
  evaluatedAt: number;
  costPerHour: number | null;
  costPerDay: number | null;
  /** What it has cost since `since`; a lower bound with `sinceIsLowerBound`. */
  paidSoFar: number | null;
  sizeGb: number | null;
  workersUp: number | null;
  workersMin: number | null;
  /** The one thing to do, in words. */
  hint: string;
};

export type FindingDetails =
  | BudgetDetails
  | IdleDetails
  | IdleNotStoppedDetails
  | IdleBlastRadiusDetails
  | IdleClusterDetails
  | EnforceDetails
  | HealthDetails
  | CapacityDetails
  | WasteDetails;

/** The details as their kind, or undefined for details of another kind (or an older version). */
export function detailsOf<K extends FindingDetails['kind']>(
  details: Record<string, unknown>,
  kind: K,
): Extract<FindingDetails, { kind: K }> | undefined {
  return details.kind === kind ? (details as Extract<FindingDetails, { kind: K }>) : undefined;
}
