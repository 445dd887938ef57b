/**
 * The notices the alert pipeline sends besides firing and resolved groups: the data a template
 * renders (src/messages/ owns the wording; alerts/notice-render.ts is a plain stand-in until then).
 */

/** One key fires and resolves over and over: said once, then left to the digest. */
export interface FlappingNotice {
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
  /** Fires within the window, the window, and how much of it the alert was firing (0–1). */
  fires: number;
  windowMs: number;
  firingShare: number;
  /** Average firing time per hour over the window ("idle ~35 min of every hour"). */
  firingPerHourMs: number;
  /** What the condition costs while it holds (the finding's `costPerHr`), when the rule knows it. */
  costPerHr: number | null;
  /** costPerHr × firingShare × 24: what the pattern costs a day if it goes on. */
  costPerDay: number | null;
  recipients: string[];
  now: number;
}

/** One open alert as the digest lists it. */
export interface DigestAlert {
  key: string;
  rule: string;
  account: string;
  severity: string;
  summary: string;
  labels: Record<string, string>;
  details: Record<string, unknown>;
  firedAt: number;
  /** The key flaps (its episodes are not mailed one by one). */
  flapping: boolean;
  costPerHr: number | null;
}

/** A stop since the last digest and what it saved: hours the Pod did not bill, at its saving rate. */
export interface DigestSaving {
  account: string;
  podId: string;
  podName: string;
  stoppedAt: number;
  /** A dry-run stop saved nothing: it is what would have been saved. */
  dryRun: boolean;
  savingPerHr: number;
  /** From the stop until the Pod ran again, or until the digest. */
  hoursNotBilled: number;
  saved: number;
}

/** The daily digest: what is still open, and what podwarden saved since the last one. */
export interface DigestNotice {
  kind: 'digest';
  /** The previous digest (or the first alert on record), and this one. */
  from: number;
  now: number;
  timeZone: string;
  open: DigestAlert[];
  savings: DigestSaving[];
  /** Sums of `saved`, real stops and dry runs apart. */
  saved: number;
  wouldHaveSaved: number;
  recipients: string[];
}
