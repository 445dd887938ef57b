import { savingsOverlapping, savingsSoFar } from '../db/savings.js';
import { counter } from './account-series.js';
import { accountNames, type MetricsContext } from './source.js';

/**
 * What the stops sent saved, from the savings ledger (stop_savings): read after each tick and
 * Pod poll (a poll closes savings, time grows the open ones). The ledger's total never goes down
 * (its rows are never deleted and an open saving grows with time), so the counter moves by what
 * it grew since the last read.
 */
export function registerSavingsMetrics({ registry, source, config, refreshOn }: MetricsContext): void {
  const saved = counter(registry, {
    name: 'podwarden_savings_dollars_total',
    help: "USD the stops podwarden sent saved: each stop's saving per hour (the Pod's cost minus its stopped volume disk) from the stop until the Pod was seen running again or gone, else until the last evaluation; dry runs save nothing.",
    labelNames: ['account'],
  });
  const counted = new Map<string, number>();
  for (const account of accountNames(config)) {
    saved.inc({ account }, 0);
    counted.set(account, 0);
  }
  refreshOn(['tick', 'pods'], async (at) => {
    for (const { account, saved: total } of savingsSoFar(
      await savingsOverlapping(source.db, { from: 0, to: at.now }),
      at.now,
    )) {
      const before = counted.get(account);
      // Accounts no longer configured keep their rows but get no series (labels stay bounded).
      if (before === undefined || total <= before) continue;
      saved.inc({ account }, total - before);
      counted.set(account, total);
    }
  });
}
