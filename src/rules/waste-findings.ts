import type { Finding } from './finding.js';
import type { WasteDetails } from './finding-details.js';

export type WasteCheck = 'endpoint-idle' | 'volume-unmounted' | 'stopped-pod-volume' | 'stuck-starting';

/** What every waste finding has: its check, the resource, and what it costs. */
export function wasteFinding(input: {
  account: string;
  check: WasteCheck;
  /** The resource's id label, e.g. `{ pod_id: 'pod-1' }`. */
  resource: Record<string, string>;
  summary: string;
  /** The figures, less what this function fills in (kind, check). */
  details: Omit<WasteDetails, 'kind' | 'check'>;
  recipients: string[] | undefined;
  severity?: Finding['severity'];
}): Finding {
  const id = Object.values(input.resource)[0] ?? '';
  return {
    rule: 'waste',
    key: `waste:${input.account}:${input.check}:${id}`,
    account: input.account,
    severity: input.severity ?? 'warning',
    summary: input.summary,
    labels: { rule: 'waste', account: input.account, check: input.check, ...input.resource },
    details: { kind: 'waste', check: input.check, ...input.details } satisfies WasteDetails,
    ...(input.recipients ? { recipients: input.recipients } : {}),
  };
}

const HOUR_MS = 3_600_000;

/** `45m`, `7h`, `3d 4h`: how long something has been wasting, rounded for people. */
export function roughDuration(ms: number): string {
  const hours = ms / HOUR_MS;
  if (hours < 1) return `${Math.max(1, Math.round(ms / 60_000))}m`;
  if (hours < 48) return `${Math.floor(hours)}h`;
  const days = Math.floor(hours / 24);
  const rest = Math.floor(hours - days * 24);
  return rest > 0 ? `${days}d ${rest}h` : `${days}d`;
}
