import type { NotifyAlert } from './alert.js';
import { renderMessage } from './templates.js';

/**
 * The `summary` and `description` annotations of one alert, in the same words as its email.
 * This is the one place Alertmanager's words come from: when the email renderer gains a
 * one-line summary and a plain description of its own, only this function changes.
 *
 * The email renders a group; here it renders a group of one and keeps the alert's own block,
 * leaving out the intro line (it names the send time, which would change every resend) and the
 * hint about `podwarden silence` (Alertmanager has its own silences).
 */
export function alertWords(alert: NotifyAlert, now: number): { summary: string; description: string } {
  const resolved = alert.resolvedAt !== null;
  const { text } = renderMessage({
    groupKey: alert.key,
    receiver: [],
    reason: resolved ? 'all_resolved' : 'first',
    firing: resolved ? [] : [alert],
    fresh: resolved ? [] : [alert],
    resolved: resolved ? [alert] : [],
    repeatIntervalMs: Number.POSITIVE_INFINITY,
    now,
  });
  const lines = text.split('\n');
  // Line 0 is the intro, line 2 the section title; the alert's block runs to the blank line.
  const end = lines.indexOf('', 3);
  const block = lines.slice(3, end === -1 ? undefined : end);
  const description = block
    .map((line, index) => (index === 0 ? line.replace(/^- /, '') : line.replace(/^ {4}/, '')))
    .join('\n');
  return { summary: alert.summary, description };
}
