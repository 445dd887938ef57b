import type { NotifyAlert } from '../alerts/alert.js';
import type { CommandLine } from '../messages/commands.js';
import { alertDescription, alertSummary } from '../messages/summary.js';

/**
 * The `summary` and `description` annotations of one alert, in the same words as its email:
 * the email's subject line and its lead sentences with the details, from `src/messages/`.
 * The email's heading and footer stay out: the footer names the send time, which would change
 * the annotation on every resend.
 */
export function alertWords(
  alert: NotifyAlert,
  now: number,
  commandLine?: CommandLine,
): { summary: string; description: string } {
  return { summary: alertSummary(alert), description: alertDescription(alert, now, 'UTC', commandLine) };
}
