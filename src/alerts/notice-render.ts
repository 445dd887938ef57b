import { formatElapsed, formatUsd, formatUsdPerHour } from '../messages/format.js';
import type { DigestNotice, FlappingNotice } from './notices.js';
import type { RenderedMessage } from './templates.js';

/**
 * A plain stand-in renderer for the flapping and digest notices, until src/messages/ renders
 * them like the other messages. Text only; the HTML part is the same text, escaped.
 */

const SUBJECT_MAX = 80;

function subject(text: string): string {
  return text.length <= SUBJECT_MAX ? text : `${text.slice(0, SUBJECT_MAX - 1)}…`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function asMessage(subjectLine: string, lines: string[]): RenderedMessage {
  const text = `${lines.join('\n')}\n`;
  return { subject: subject(subjectLine), text, html: `<pre>${escapeHtml(text)}</pre>` };
}

function subjectOfAlert(notice: Pick<FlappingNotice, 'labels' | 'key'>): string {
  return notice.labels.pod_name ?? notice.labels.budget ?? notice.labels.pod_id ?? notice.key;
}

export function renderFlappingNotice(notice: FlappingNotice): RenderedMessage {
  const who = subjectOfAlert(notice);
  const pattern = `firing ~${formatElapsed(notice.firingPerHourMs)} of every hour`;
  const cost = notice.costPerDay !== null ? `: ~${formatUsd(notice.costPerDay)}/day` : '';
  return asMessage(`[podwarden] Flapping: ${who} ${pattern}${cost}`, [
    `${who} has fired ${notice.fires} times in the last ${formatElapsed(notice.windowMs)} (${pattern}${cost}).`,
    `Its alerts are not mailed one by one until it settles (no change for ${formatElapsed(notice.windowMs)}); the daily digest lists it.`,
    '',
    `Latest: ${notice.summary}`,
    ...(notice.costPerHr !== null ? [`Cost while firing: ${formatUsdPerHour(notice.costPerHr)}`] : []),
    `Alert: ${notice.key}`,
  ]);
}

export function renderDigestNotice(notice: DigestNotice): RenderedMessage {
  const lines = [`Still open: ${notice.open.length}. Saved since the last digest: ${formatUsd(notice.saved)}.`];
  if (notice.wouldHaveSaved > 0) lines.push(`Dry-run stops would have saved ${formatUsd(notice.wouldHaveSaved)}.`);
  lines.push('', 'Open:');
  for (const alert of notice.open) {
    const cost = alert.costPerHr !== null ? ` (${formatUsdPerHour(alert.costPerHr)})` : '';
    lines.push(`- ${alert.summary}${cost}${alert.flapping ? ' [flapping]' : ''}`);
  }
  if (notice.open.length === 0) lines.push('- nothing');
  lines.push('', 'Stops:');
  for (const saving of notice.savings) {
    const verb = saving.dryRun ? 'would have saved' : 'saved';
    lines.push(
      `- ${saving.podName} (${saving.account}): ${formatElapsed(saving.hoursNotBilled * 3_600_000)} not billed, ${verb} ${formatUsd(saving.saved)}`,
    );
  }
  if (notice.savings.length === 0) lines.push('- none');
  return asMessage(`[podwarden] Daily digest: ${notice.open.length} open, ${formatUsd(notice.saved)} saved`, lines);
}
