import type { ReplayReport } from '../replay/report.js';
import { formatDateTime } from './format.js';

/** What the file named that a backtest left alone, for the summary to say so. */
export interface SandboxedTargets {
  smtp?: string;
  apiUrls: readonly string[];
  alertmanagerUrls: readonly string[];
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/**
 * The terminal summary of `podwarden simulate`: the totals, what the sandbox kept from being
 * called, and per account the emails it would have sent (when, why, to whom, subject) and its
 * stops. The JSON report holds the same and more; this is what a person reads first.
 */
export function backtestSummary(
  report: ReplayReport & { warnings: readonly unknown[] },
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
    ].filter((target) => target !== undefined);
    lines.push(`Nothing was sent: mail went to an in-process sink, each account played a simulated world.`);
    if (left.length > 0) lines.push(`Not called: ${left.join(', ')}.`);
  }
  if (report.warnings.length > 0) {
    lines.push(`${plural(report.warnings.length, 'warning')} logged (injected faults, mostly): see the report.`);
  }
  for (const account of report.accounts) {
    lines.push(
      '',
      `${account.name}: ${plural(account.emails.length, 'email')} would have been sent, ` +
        `${plural(account.stops.length, 'stop')}${account.stops.some((stop) => stop.dryRun) ? ' (dry run)' : ''}`,
    );
    for (const email of account.emails) {
      lines.push(
        `  ${formatDateTime(Date.parse(email.at), 'UTC')}  ${email.reason}  to ${email.to.join(', ')}`,
        `    ${email.subject}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
