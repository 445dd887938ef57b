import { HOUR_MS } from '../buckets.js';
import type { ResourceSpend } from '../db/spend.js';
import type { Finding } from './finding.js';
import type { WasteDetails } from './finding-details.js';

/** What `perHour` costs over `ms`. */
export const paidFor = (perHour: number, ms: number) => (perHour * ms) / HOUR_MS;

/** The rate billed since `windowStart`, USD per hour; null while nothing after it is billed. */
export function billedPerHour(spend: ResourceSpend | undefined, windowStart: number): number | null {
  if (!spend || spend.coveredThrough <= windowStart) return null;
  return spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS);
}

/**
 * What every waste finding has: its check, the resource, and what it costs per day and has cost
 * since `since` (at `costPerHour`); figures a check does not know are null.
 */
export function wasteFinding(input: {
  account: string;
  check: WasteDetails['check'];
  /** The resource's id label, e.g. `{ pod_id: 'pod-1' }`. */
  resource: Record<string, string>;
  summary: string;
  now: number;
  details: Pick<WasteDetails, 'resourceName' | 'since' | 'sinceIsLowerBound' | 'costPerHour' | 'hint'> &
    Partial<Pick<WasteDetails, 'sizeGb' | 'workersUp' | 'workersMin' | 'podStatus'>>;
  recipients: string[] | undefined;
  severity?: Finding['severity'];
}): Finding {
  const { account, check, now, details } = input;
  const id = Object.values(input.resource)[0] ?? '';
  const perHour = details.costPerHour;
  return {
    rule: 'waste',
    key: `waste:${account}:${check}:${id}`,
    account,
    severity: input.severity ?? 'warning',
    summary: input.summary,
    labels: { rule: 'waste', account, check, ...input.resource },
    details: {
      kind: 'waste',
      check,
      resourceId: id,
      resourceName: details.resourceName,
      since: details.since,
      sinceIsLowerBound: details.sinceIsLowerBound,
      evaluatedAt: now,
      costPerHour: perHour,
      costPerDay: perHour === null ? null : Math.round(perHour * 24 * 100) / 100,
      paidSoFar: perHour === null ? null : paidFor(perHour, now - details.since),
      sizeGb: details.sizeGb ?? null,
      workersUp: details.workersUp ?? null,
      workersMin: details.workersMin ?? null,
      ...(details.podStatus === undefined ? {} : { podStatus: details.podStatus }),
      hint: details.hint,
    } satisfies WasteDetails,
    ...(input.recipients ? { recipients: input.recipients } : {}),
  };
}

/** `45m`, `7h`, `3d 4h`: how long something has been wasting, rounded for people. */
export function roughDuration(ms: number): string {
  const hours = ms / HOUR_MS;
  if (hours < 1) return `${Math.max(1, Math.round(ms / 60_000))}m`;
  if (hours < 48) return `${Math.floor(hours)}h`;
  const days = Math.floor(hours / 24);
  const rest = Math.floor(hours - days * 24);
  return rest > 0 ? `${days}d ${rest}h` : `${days}d`;
}
