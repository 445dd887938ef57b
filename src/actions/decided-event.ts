import type { ReceiptInput } from '../db/receipts.js';
import type { ActionContext } from './context.js';

/** Tells the daemon (metrics, logs) of every receipt a ladder step actually wrote: none twice. */
export function announceDecided(events: ActionContext['events'], written: readonly ReceiptInput[]): void {
  for (const receipt of written) {
    events.emit('action:decided', {
      at: receipt.decidedAt,
      podId: receipt.podId,
      account: receipt.account,
      decision: receipt.decision,
      dryRun: receipt.dryRun,
      held: receipt.decision === 'blocked' ? receipt.guards.filter((guard) => !guard.passed) : [],
      reason: receipt.reason,
    });
  }
}
