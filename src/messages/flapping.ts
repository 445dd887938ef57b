import type { FlappingNotice } from '../alerts/notices.js';
import { formatDateTime, formatElapsed, formatUsd, formatUsdPerHour } from '../format.js';
import { alertView } from './alert-view.js';
import { BARE_COMMAND_LINE, type CommandLine, silenceBlock } from './commands.js';
import { accountSubject } from './email.js';
import type { EmailView } from './view.js';

/** The one notice of a flapping alert: podwarden stops mailing each occurrence. */
export function flappingView(
  notice: FlappingNotice,
  timeZone = 'UTC',
  commandLine: CommandLine = BARE_COMMAND_LINE,
): EmailView {
  const view = alertView(
    { ...notice, severity: 'info', firedAt: notice.since, resolvedAt: null },
    { now: notice.now, timeZone, commandLine },
  );
  const share = `~${formatElapsed(notice.heldPerHourMs)} of every hour`;
  const perDay = notice.costPerDay === null ? '' : `: ~${formatUsd(notice.costPerDay)}/day`;
  const podName = notice.labels.pod_name ?? notice.labels.pod_id;
  const held = notice.labels.held === 'true';
  // An idle Pod says what it does; any other alert says that its condition holds.
  const idlePod = notice.rule === 'idle' ? podName : undefined;
  const what = idlePod || view.title;
  const pattern = idlePod
    ? `${idlePod} sits idle${held ? ' with GPU memory held' : ''} ${share}`
    : `${view.title} holds ${share}`;
  // The subject says the share shorter, so the account before it and the cost after it fit.
  const shortShare = `~${formatElapsed(notice.heldPerHourMs)} an hour`;
  const subject = `Flapping: ${idlePod ? `${idlePod} idle${held ? ', memory held,' : ''} ${shortShare}` : pattern}${perDay}`;
  const lead = [
    `${pattern}${perDay ? `, which costs${perDay.slice(1)}` : ''}; its alert fired ${notice.fires} times in the last ${formatElapsed(notice.windowMs)}.`,
    `podwarden will not mail each occurrence until it settles (${formatElapsed(notice.windowMs)} without a change); fix the pattern or silence it.`,
  ];
  const rows: [string, string][] = [
    ['Fired', `${notice.fires} times in ${formatElapsed(notice.windowMs)}`],
    ['Holds', share],
    ...(notice.costPerHr === null
      ? []
      : ([['Costs while it holds', formatUsdPerHour(notice.costPerHr)]] as [string, string][])),
    ['Flapping since', formatDateTime(notice.since, timeZone)],
    ['Account', notice.account],
  ];
  return {
    subject: accountSubject([notice.account], subject),
    tone: 'warning',
    heading: subject,
    lead,
    blocks: [
      { type: 'table', rows },
      silenceBlock(commandLine, notice, 'Silence it for a day', '24h', `${what} flaps, known`),
    ],
    sections: [],
    actions: [],
    footer: [
      `podwarden · flapping · ${formatDateTime(notice.now, timeZone)}`,
      `Account ${notice.account} · sent to ${notice.recipients.join(', ')}`,
    ],
  };
}
