import { HOUR_MS } from '../buckets.js';
import { formatClock, formatDateTime, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';

/**
 * What a person reads about an emailed action link: the confirmation page's question, what was
 * done, and why a link was refused. The page itself (HTML) is the web layer's.
 */

/** Why an emailed action link is refused: links/ decides, this file words it. */
export type LinkRefusal =
  /** Not a token at all (cut short by a mail client, say). */
  | { reason: 'malformed' }
  /** The signature does not match: forged, altered, or signed with another secret. */
  | { reason: 'forged' }
  | { reason: 'expired'; expiresAt: number }
  | { reason: 'used'; usedAt: number; recipient: string }
  /** A valid token for another Pod or alert than the URL names. */
  | { reason: 'other-subject'; subject: string }
  /** The Pod or alert no longer exists, or the action makes no sense now. */
  | { reason: 'gone'; detail: string };

/** A time on the reader's today reads as a clock time ("17:30 CET"); another day's with its date. */
function when(at: number, now: number, timeZone: string): string {
  const day = (ms: number) => formatDateTime(ms, timeZone).split(', ')[0];
  return day(at) === day(now) ? formatClock(at, timeZone) : formatDateTime(at, timeZone);
}

export function keepRunningPreview(input: {
  podName: string;
  costPerHr: number;
  until: number;
  now: number;
  timeZone: string;
  plannedStopAt: number | null;
}) {
  const until = when(input.until, input.now, input.timeZone);
  const detail = [
    `It costs ${formatUsdPerHour(input.costPerHr)}: ${formatUsd((input.costPerHr * (input.until - input.now)) / HOUR_MS)} until then (${formatElapsed(input.until - input.now)}).`,
  ];
  if (input.plannedStopAt !== null) {
    detail.push(`Its stop planned at ${when(input.plannedStopAt, input.now, input.timeZone)} is cancelled.`);
  }
  detail.push('After that, podwarden watches it again: a new warning comes before any stop.');
  return { question: `Keep ${input.podName} running until ${until}?`, detail, button: `Keep running until ${until}` };
}

export function keepRunningDone(podName: string, until: number, now: number, timeZone: string): string {
  return `${podName} keeps running until ${when(until, now, timeZone)}; podwarden will not warn about it or stop it before then.`;
}

export function alreadySnoozedDone(podName: string, until: number, now: number, timeZone: string): string {
  return `${podName} was already kept running until ${when(until, now, timeZone)}, later than this link offers; nothing changed.`;
}

export function silencePreview(input: { title: string; until: number; now: number; timeZone: string }) {
  const until = when(input.until, input.now, input.timeZone);
  return {
    question: `Silence "${input.title}" until ${until}?`,
    detail: [
      `No email about it until then (${formatElapsed(input.until - input.now)}); it still shows on the status page and in the metrics.`,
    ],
    button: `Silence until ${until}`,
  };
}

export function silenceDone(title: string, until: number, now: number, timeZone: string): string {
  return `"${title}" is silenced until ${when(until, now, timeZone)}.`;
}

export function extendDeadlinePreview(input: {
  podName: string;
  costPerHr: number;
  deadline: number;
  byMs: number;
  now: number;
  timeZone: string;
}) {
  const to = when(input.deadline + input.byMs, input.now, input.timeZone);
  return {
    question: `Keep ${input.podName} running ${formatElapsed(input.byMs)} longer, until ${to}?`,
    detail: [
      `Its deadline moves from ${when(input.deadline, input.now, input.timeZone)} to ${to}. It costs ${formatUsdPerHour(input.costPerHr)}: ${formatUsd((input.costPerHr * input.byMs) / HOUR_MS)} more.`,
      'podwarden warns again before the new deadline.',
    ],
    button: `Move the deadline to ${to}`,
  };
}

export function extendDeadlineDone(podName: string, deadline: number, now: number, timeZone: string): string {
  return `The deadline of ${podName} moved to ${when(deadline, now, timeZone)}; podwarden warns again before it.`;
}

/** Why an extend-deadline link no longer applies. */
export function deadlineOver(podName: string, endReason: string | null, decided: boolean): string {
  if (decided) return `the deadline of ${podName} this email was about has passed and its stop was decided`;
  const how = endReason === null ? undefined : (SPELL_ENDS[endReason] ?? endReason);
  return `the run of ${podName} this email was about is over${how ? ` (${how})` : ''}`;
}

const SPELL_ENDS: Record<string, string> = {
  active: 'it got busy',
  snoozed: 'it was kept running meanwhile',
  unknown: 'podwarden lost sight of its GPU use',
  excluded: 'it was excluded from idle rules',
  gone: 'it is gone',
  not_running: 'it is no longer running',
  not_selected: 'its control no longer covers it',
};

/** Why a warning's keep-running link no longer applies: its idle spell ended, and how. */
export function idleSpellOver(podName: string, endReason: string | null): string {
  const how = endReason === null ? undefined : (SPELL_ENDS[endReason] ?? endReason);
  return `the idle spell of ${podName} this email was about is over${how ? ` (${how})` : ''}`;
}

/** A refusal as a sentence for the page: it says which check failed, and that nothing changed. */
export function describeRefusal(refusal: LinkRefusal, timeZone: string): string {
  switch (refusal.reason) {
    case 'malformed':
      return 'This link is incomplete (perhaps cut short by the mail program); nothing changed. Copy the whole link from the email.';
    case 'forged':
      return 'This link was not made by this podwarden, or was altered; nothing changed.';
    case 'expired':
      return `This link expired at ${formatDateTime(refusal.expiresAt, timeZone)}; nothing changed.`;
    case 'used':
      return `This link was already used at ${formatDateTime(refusal.usedAt, timeZone)} (sent to ${refusal.recipient}); nothing changed.`;
    case 'other-subject':
      return `This link was made for ${refusal.subject}, not for what this address names; nothing changed.`;
    case 'gone':
      return `This link no longer applies: ${refusal.detail}; nothing changed.`;
  }
}
