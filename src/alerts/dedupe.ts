/** What a group's notification log entry remembers of its last message. */
export interface LogEntry {
  firing: ReadonlySet<number>;
  resolved: ReadonlySet<number>;
  notifiedAt: number;
}

const DESCRIPTIONS = {
  first: 'first notification',
  new_alerts: 'new alerts in group',
  new_resolved: 'alerts resolved',
  all_resolved: 'all alerts resolved',
  repeat_elapsed: 'repeat interval elapsed',
  none: 'nothing new',
};
export type NotifyReason = keyof typeof DESCRIPTIONS;

export function describeReason(reason: NotifyReason): string {
  return DESCRIPTIONS[reason];
}

function isSubset(items: ReadonlySet<number>, of: ReadonlySet<number>): boolean {
  for (const item of items) if (!of.has(item)) return false;
  return true;
}

/**
 * Whether a group must be notified, and why (Alertmanager's DedupStage.needsUpdate). `firing` and
 * `resolved` are the ids the group would announce now (resolved only for rules that send
 * resolved notices); `entry` is what its last message said, or null if it never had one.
 */
export function needsUpdate(
  entry: LogEntry | null,
  firing: ReadonlySet<number>,
  resolved: ReadonlySet<number>,
  repeatMs: number,
  now: number,
): NotifyReason {
  if (entry === null) return firing.size > 0 ? 'first' : 'none';
  if (!isSubset(firing, entry.firing)) return 'new_alerts';
  const resolvedNews = resolved.size > 0 && !isSubset(resolved, entry.resolved);
  if (firing.size === 0) return resolvedNews ? 'all_resolved' : 'none';
  if (resolvedNews) return 'new_resolved';
  return now >= entry.notifiedAt + repeatMs ? 'repeat_elapsed' : 'none';
}
