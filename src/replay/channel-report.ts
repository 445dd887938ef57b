import { toIso } from '../clock.js';
import { messageRowsBetween, type OutboxRow } from '../db/channel-outbox.js';
import type { Database } from '../db/open.js';
import type { ReportedChannel } from './report.js';

/** A summary is one line: what a person would see first of the message. */
const SUMMARY_MAX = 160;

/**
 * What each channel would have received in [from, to): every message row by channel, in the
 * order written. Read from the outbox, whatever the channel: the payload's own one-line
 * summary (an email's `subject`, a webhook's `headline`, a chat message's `text`), else why it
 * was written and the alerts it announces.
 */
export async function reportedChannels(
  database: Database,
  from: number,
  to: number,
): Promise<Record<string, ReportedChannel>> {
  const channels: Record<string, ReportedChannel> = {};
  for (const row of await messageRowsBetween(database, from, to)) {
    const channel = channels[row.channel] ?? { count: 0, delivered: 0, messages: [] };
    channels[row.channel] = channel;
    const delivered = row.deliveredAt !== null;
    channel.count += 1;
    if (delivered) channel.delivered += 1;
    channel.messages.push({
      at: toIso(row.deliveredAt ?? row.createdAt),
      ...(row.target === '' ? {} : { target: row.target }),
      reason: row.reason,
      summary: summaryOf(row),
      delivered,
    });
  }
  return Object.fromEntries(Object.entries(channels).sort(([a], [b]) => a.localeCompare(b)));
}

function summaryOf(row: OutboxRow): string {
  const payload = (row.payload ?? {}) as Record<string, unknown>;
  const line = [payload.subject, payload.headline, payload.text]
    .find((value): value is string => typeof value === 'string' && value.trim() !== '')
    ?.trim()
    .split('\n')[0];
  const text = line ?? `${row.reason}: ${row.alertKeys.join(', ')}`;
  return text.length <= SUMMARY_MAX ? text : `${text.slice(0, SUMMARY_MAX - 1).trimEnd()}…`;
}
