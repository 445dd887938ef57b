import { groupBy } from '../db/group-by.js';
import { alertView } from './alert-view.js';
import { identityMatchers } from './commands.js';
import type { AlertData, AlertView, RenderContext } from './view.js';

/**
 * The open alerts as a page lists them, in the emails' words: one row per identity (commands.ts),
 * so the row's Silence acts on every alert the row stands for.
 */
export interface OpenAlertRow<A extends AlertData> {
  /** The alert the row speaks for: the most severe, then highest threshold, then latest. */
  alert: A;
  view: AlertView;
  /** How many open alerts the row stands for (1 or more). */
  count: number;
}

const SEVERITY_RANK: Record<string, number> = { critical: 3, warning: 2, info: 1 };

/** Which of two alerts about one thing speaks for both: negative when `a` does. */
function speaksFirst(a: AlertData, b: AlertData): number {
  const threshold = (alert: AlertData) => Number(alert.labels.threshold ?? 0) || 0;
  return (
    (SEVERITY_RANK[b.severity] ?? 0) - (SEVERITY_RANK[a.severity] ?? 0) ||
    threshold(b) - threshold(a) ||
    b.firedAt - a.firedAt
  );
}

/** Rows in the order of the alerts given (each where its thing's first alert stood). */
export function openAlertRows<A extends AlertData>(alerts: readonly A[], ctx: RenderContext): OpenAlertRow<A>[] {
  const groups = groupBy(alerts, (alert) => [alert.account, ...identityMatchers(alert.rule, alert.labels)].join(' '));
  return [...groups.values()].map((group) => {
    const [alert] = [...group].sort(speaksFirst) as [A, ...A[]];
    return { alert, view: alertView(alert, ctx), count: group.length };
  });
}
