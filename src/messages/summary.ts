import { alertView } from './alert-view.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { renderAlertText } from './text.js';
import type { AlertData } from './view.js';

/** One alert in the email's words for other outputs (Alertmanager annotations, logs). */

/** What, which, how much, in one line of at most about 80 characters. */
export function alertSummary(alert: AlertData, timeZone = 'UTC'): string {
  return alertView(alert, { now: alert.resolvedAt ?? alert.firedAt, timeZone, commandLine: BARE_COMMAND_LINE })
    .headline;
}

/** The lead sentences and the details (table, commands) as plain text, no heading or footer. */
export function alertDescription(
  alert: AlertData,
  now: number,
  timeZone = 'UTC',
  commandLine: CommandLine = BARE_COMMAND_LINE,
): string {
  return renderAlertText(alertView(alert, { now, timeZone, commandLine }));
}
