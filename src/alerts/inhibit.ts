import type { NotifyAlert } from './alert.js';

/** The labels two budget alerts share when one can mute the other: the same budget and figure. */
const SAME_BUDGET = ['account', 'budget', 'figure'] as const;

/**
 * Inhibition stage: a budget alert is muted while an alert of the same budget, account and figure
 * is firing at a higher threshold (100 % mutes 80 % and 50 %; 80 % mutes 50 %). Nothing else is
 * muted: another figure, budget or rule never is, and resolved alerts pass.
 */
export function muteInhibited(batch: NotifyAlert[]): NotifyAlert[] {
  const highest = new Map<string, number>();
  const budgetOf = (alert: NotifyAlert) => SAME_BUDGET.map((name) => alert.labels[name] ?? '').join('\u0000');
  const firingBudgets = batch.filter((alert) => alert.rule === 'budget' && alert.resolvedAt === null);
  for (const alert of firingBudgets) {
    const threshold = Number(alert.labels.threshold);
    highest.set(budgetOf(alert), Math.max(highest.get(budgetOf(alert)) ?? Number.NEGATIVE_INFINITY, threshold));
  }
  return batch.filter(
    (alert) =>
      !(
        alert.rule === 'budget' &&
        alert.resolvedAt === null &&
        Number(alert.labels.threshold) < (highest.get(budgetOf(alert)) ?? 0)
      ),
  );
}
