import type { ReceiptDecision, ReceiptKind } from '../db/schema.js';

/** What each idle or enforcement decision is called, in `podwarden why` and on the status page alike. */
export const RECEIPT_DECISION_TEXT: Record<ReceiptDecision, string> = {
  notified: 'found idle: notified',
  warned: 'warned',
  stopped: 'STOPPED',
  dry_run: 'would stop (dry run: nothing sent)',
  blocked: 'stop blocked',
  failed: 'stop failed',
  cancelled: 'warning cancelled',
  extended: 'stop moved later (Keep running)',
};

const KIND_TEXT: Record<ReceiptKind, string> = {
  idle: 'rule',
  deadline: 'deadline',
  schedule: 'schedule',
  budget_cap: 'budget cap',
};

/** Which rule or control decided: "rule default", "deadline training", "schedule nights". */
export function controlOf(receipt: { kind: ReceiptKind; rule: string }): string {
  return `${KIND_TEXT[receipt.kind]} ${receipt.rule}`;
}
