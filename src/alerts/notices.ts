import type { Database } from '../db/open.js';
import type { SavingsSoFar } from '../db/savings.js';
import type { DecisionSource } from '../db/schema.js';
import type { AlertFields } from './alert.js';
import type { FlapPattern } from './flapping.js';
import type { TeamSpendReport } from './team-spend.js';

/**
 * The notices the alert pipeline sends besides firing and resolved groups: the data a template
 * renders (src/messages/notices.ts owns the wording).
 */

/** One key fires and resolves over and over: said once, then left to the digest. */
export interface FlappingNotice extends FlapPattern {
  kind: 'flapping';
  key: string;
  rule: string;
  account: string;
  /** The alert's labels, for the silence command a message prints. */
  labels: Record<string, string>;
  /** The latest episode's summary and finding details (the rule's own figures). */
  summary: string;
  details: Record<string, unknown>;
  /** When the key started flapping. */
  since: number;
  windowMs: number;
  /** What the condition costs while it holds (the finding's `costPerHr`), when the rule knows it. */
  costPerHr: number | null;
  /** costPerHr × heldShare × 24: what the pattern costs a day if it goes on. */
  costPerDay: number | null;
  recipients: string[];
  now: number;
}

/** A stop since the last digest and what it kept from being billed (src/alerts/digest.ts). */
export interface DigestSaving {
  podId: string;
  podName: string;
  decidedAt: number;
  dryRun: boolean;
  savingPerHr: number;
  /** How long the Pod has not billed (dry run: would not have) since the last digest, up to now. */
  notBilledMs: number;
  /** Whether that is still going on: the Pod still stopped (dry run: still idle). */
  ongoing: boolean;
  saved: number;
}

/** Once a day: what is still open in one account, with its costs, and what the stops saved. */
export interface DigestNotice {
  kind: 'digest';
  account: string;
  /** Firing alerts of the account, flapping ones left out (they are in `flapping`). */
  open: (AlertFields & { key: string })[];
  flapping: FlappingNotice[];
  savings: DigestSaving[];
  /** Where the savings are counted from: the last digest, or a day back for the first. */
  since: number;
  /** Whether `since` is a previous digest (else the first one, a day back). */
  sinceLastDigest: boolean;
  timeZone: string;
  recipients: string[];
  now: number;
  /** Snoozes and silences that hold now (links/decisions.ts), wherever they were made. */
  held?: HeldDecision[];
  /** The account's spend by team this month; only when `owners` gives resources a team. */
  teamSpend?: TeamSpendReport;
  /** The savings ledger's running total for the account; absent before its first stop sent. */
  savedSoFar?: SavingsSoFar;
}

/**
 * A snooze or silence people made that still holds, wherever they made it (command line, emailed
 * link, status page): /api/status lists them and the digest mentions them, so a decision taken
 * from a phone is as visible as one taken on the host (links/decisions.ts reads them).
 */
export interface HeldDecision {
  kind: 'snooze' | 'silence';
  /** The Pod's account; for a silence, its `account=` matcher's value, or null when it has none. */
  account: string | null;
  /** The Pod id, or the silence's matchers (`rule=idle pod_id=nb`). */
  subject: string;
  /** The Pod's name when known. */
  name: string | null;
  until: number;
  createdAt: number;
  source: DecisionSource;
  /** The recipient(s) of the emailed link, the silence's author; null when unknown. */
  createdBy: string | null;
}

/** The snoozes and silences that hold now for an account (links/decisions.ts reads them). */
export type HeldDecisions = (database: Database, now: number, account: string) => Promise<HeldDecision[]>;
