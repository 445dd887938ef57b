import { formatDateTime } from '../format.js';

/** What the file named that a backtest left alone, for the summary to say so. */
export interface SandboxedTargets {
  smtp?: string;
  apiUrls: readonly string[];
  alertmanagerUrls: readonly string[];
  /** Other channels' destinations, as the file names them (`webhook ops-bot`). */
  destinations?: readonly string[];
}

/** What the summary reads of a replay's report (replay/report.ts writes it). */
export interface BacktestFacts {
  scenario: string;
  wallMs: number;
  api: { requests: number; status429: number; status5xx: number };
  stops: readonly unknown[];
  alerts: readonly unknown[];
  emails: readonly unknown[];
  warnings: readonly unknown[];
  accounts: ReadonlyArray<{
    name: string;
    emails: ReadonlyArray<{ at: string; reason: string; to: readonly string[]; subject: string }>;
    stops: ReadonlyArray<{ dryRun: boolean }>;
  }>;
  /** Per channel, what it would have received (email's messages are listed per account). */
  channels?: Readonly<
    Record<string, { count: number; messages: ReadonlyArray<{ at: string; target?: string; summary: string }> }>
  >;
}

/** Per account, the summary lists this many emails; the report lists them all. */
const LISTED_EMAILS = 25;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

function dryRuns(stops: ReadonlyArray<{ dryRun: boolean }>): string {
  const count = stops.filter((stop) => stop.dryRun).length;
  if (count === 0) return '';
  return count === stops.length ? ' (dry run)' : ` (${count} dry run)`;
}

/** The terminal summary of `podwarden simulate`; the JSON report holds the same and more. */
export function backtestSummary(
  report: BacktestFacts,
  options: { until: string; reportPath?: string; sandboxed?: SandboxedTargets },
): string {
  const { api } = report;
  const lines = [
    `simulated ${options.until} of ${report.scenario} in ${(report.wallMs / 1000).toFixed(1)} s: ` +
      `${api.requests} requests (${api.status429} × 429, ${api.status5xx} × 5xx), ` +
      `${plural(report.stops.length, 'stop')}, ${plural(report.alerts.length, 'alert')}, ` +
      `${plural(report.emails.length, 'email')}` +
      (options.reportPath ? `; report: ${options.reportPath}` : ''),
  ];
  const sandboxed = options.sandboxed;
  if (sandboxed) {
    const left = [
      sandboxed.smtp ? `SMTP server ${sandboxed.smtp}` : undefined,
      ...sandboxed.apiUrls.map((url) => `API ${url}`),
      ...sandboxed.alertmanagerUrls.map((url) => `Alertmanager ${url}`),
      ...(sandboxed.destinations ?? []),
    ].filter((target) => target !== undefined);
    lines.push(
      `Nothing was sent: mail went to an in-process sink, webhook and chat only recorded what they would have received, Alertmanager was left out, each account played a simulated world.`,
    );
    if (left.length > 0) lines.push(`Not called: ${left.join(', ')}.`);
  }
  if (report.warnings.length > 0) {
    lines.push(`${plural(report.warnings.length, 'warning')} logged (injected faults, mostly): see the report.`);
  }
  for (const account of report.accounts) {
    lines.push(
      '',
      `${account.name}: ${plural(account.emails.length, 'email')} would have been sent, ` +
        `${plural(account.stops.length, 'stop')}${dryRuns(account.stops)}`,
    );
    for (const email of account.emails.slice(0, LISTED_EMAILS)) {
      lines.push(
        `  ${formatDateTime(Date.parse(email.at), 'UTC')}  ${email.reason}  to ${email.to.join(', ')}`,
        `    ${email.subject}`,
      );
    }
    const unlisted = account.emails.length - LISTED_EMAILS;
    if (unlisted > 0) lines.push(`  … and ${plural(unlisted, 'more email')} in the report`);
  }
  for (const [name, channel] of Object.entries(report.channels ?? {})) {
    if (name === 'email') continue;
    lines.push('', `${name}: ${plural(channel.count, 'message')} would have been delivered`);
    for (const message of channel.messages.slice(0, LISTED_EMAILS)) {
      const to = message.target ? `  to ${message.target}` : '';
      lines.push(`  ${formatDateTime(Date.parse(message.at), 'UTC')}${to}`, `    ${message.summary}`);
    }
    const unlisted = channel.messages.length - LISTED_EMAILS;
    if (unlisted > 0) lines.push(`  … and ${plural(unlisted, 'more message')} in the report`);
  }
  return `${lines.join('\n')}\n`;
}
