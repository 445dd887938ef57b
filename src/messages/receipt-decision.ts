import type { ReceiptDecision } from '../db/schema.js';

/** What each idle decision is called, in `podwarden why` and on the status page alike. */
export const RECEIPT_DECISION_TEXT: Record<ReceiptDecision, string> = {
  notified: 'found idle: notified',
  warned: 'warned',
  stopped: 'STOPPED',
  dry_run: 'would stop (dry run: nothing sent)',
  blocked: 'stop blocked',
  failed: 'stop failed',
  cancelled: 'warning cancelled',
};
