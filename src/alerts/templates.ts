import { toIso } from '../clock.js';
import type { NotifyAlert } from './alert.js';
import { describeReason } from './dedupe.js';
import type { Notification } from './pipeline.js';

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

const SEVERITY_ORDER = ['critical', 'warning', 'info'];

function bySeverity(a: NotifyAlert, b: NotifyAlert): number {
  return SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || b.firedAt - a.firedAt;
}

function more(count: number): string {
  return count > 1 ? ` (+${count - 1} more)` : '';
}

/** The subject says what happened and how much: the most severe alert's summary, and how many more. */
export function subjectOf(notification: Notification): string {
  const { reason, fresh, firing, resolved } = notification;
  const top = (list: NotifyAlert[]) => [...list].sort(bySeverity)[0]?.summary ?? '';
  switch (reason) {
    case 'first':
    case 'new_alerts':
      return `[podwarden] ${top(fresh)}${more(fresh.length)}`;
    case 'repeat_elapsed':
      return `[podwarden] Still firing: ${top(firing)}${more(firing.length)}`;
    default: {
      const still = firing.length > 0 ? `, ${firing.length} still firing` : '';
      return `[podwarden] Resolved: ${top(resolved)}${more(resolved.length)}${still}`;
    }
  }
}

interface Section {
  title: string;
  alerts: NotifyAlert[];
}

/**
 * A digest of a large account can hold hundreds of alerts: the first ones come with their
 * figures, the next only as one line each, the rest as a count, so a message stays readable
 * and small (the outbox keeps every message until it is sent).
 */
const DETAILED_PER_SECTION = 20;
const LISTED_PER_SECTION = 200;

function split(alerts: NotifyAlert[]): { detailed: NotifyAlert[]; listed: NotifyAlert[]; hidden: number } {
  return {
    detailed: alerts.slice(0, DETAILED_PER_SECTION),
    listed: alerts.slice(DETAILED_PER_SECTION, LISTED_PER_SECTION),
    hidden: Math.max(0, alerts.length - LISTED_PER_SECTION),
  };
}

const hiddenNote = (hidden: number) => `… and ${hidden} more: see /api/status or podwarden's metrics`;

function sectionsOf(notification: Notification): Section[] {
  const freshIds = new Set(notification.fresh.map((alert) => alert.id));
  return [
    { title: 'New', alerts: [...notification.fresh].sort(bySeverity) },
    { title: 'Still firing', alerts: notification.firing.filter((alert) => !freshIds.has(alert.id)).sort(bySeverity) },
    { title: 'Resolved', alerts: [...notification.resolved].sort(bySeverity) },
  ].filter((section) => section.alerts.length > 0);
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function whenText(alert: NotifyAlert): string {
  return alert.resolvedAt === null
    ? `firing since ${toIso(alert.firedAt)}`
    : `fired ${toIso(alert.firedAt)}, resolved ${toIso(alert.resolvedAt)}`;
}

function silenceHint(notification: Notification): string {
  const key = notification.firing[0]?.key ?? notification.resolved[0]?.key ?? '';
  return `To silence an alert: podwarden silence add --match key=${key} --for 2h --comment "why"`;
}

/** Plain-text and HTML bodies of one notification; the text reads well in any mail client. */
export function renderMessage(notification: Notification): RenderedMessage {
  const sections = sectionsOf(notification);
  const intro = `podwarden: ${describeReason(notification.reason)} at ${toIso(notification.now)}`;
  const text: string[] = [intro, ''];
  for (const section of sections) {
    text.push(`${section.title.toUpperCase()} (${section.alerts.length})`);
    const { detailed, listed, hidden } = split(section.alerts);
    for (const alert of detailed) {
      text.push(`- [${alert.severity}] ${alert.summary}`, `    ${whenText(alert)}`);
      for (const [name, value] of Object.entries(alert.details)) {
        if (Array.isArray(value)) {
          text.push(`    ${name}:`, ...value.map((item) => `      - ${valueText(item)}`));
        } else {
          text.push(`    ${name}: ${valueText(value)}`);
        }
      }
      text.push(`    key: ${alert.key}`);
    }
    for (const alert of listed) text.push(`- [${alert.severity}] ${alert.summary}`);
    if (hidden > 0) text.push(hiddenNote(hidden));
    text.push('');
  }
  text.push(silenceHint(notification), '');

  const html: string[] = ['<!doctype html><html><body style="font-family:sans-serif">', `<p>${escapeHtml(intro)}</p>`];
  for (const section of sections) {
    html.push(`<h2>${escapeHtml(section.title)} (${section.alerts.length})</h2>`);
    const { detailed, listed, hidden } = split(section.alerts);
    for (const alert of detailed) {
      html.push(
        `<h3>[${escapeHtml(alert.severity)}] ${escapeHtml(alert.summary)}</h3>`,
        `<p>${escapeHtml(whenText(alert))}</p>`,
        '<table>',
      );
      for (const [name, value] of Object.entries(alert.details)) {
        const cell = Array.isArray(value)
          ? `<ul>${value.map((item) => `<li>${escapeHtml(valueText(item))}</li>`).join('')}</ul>`
          : escapeHtml(valueText(value));
        html.push(`<tr><th align="left">${escapeHtml(name)}</th><td>${cell}</td></tr>`);
      }
      html.push(`<tr><th align="left">key</th><td><code>${escapeHtml(alert.key)}</code></td></tr>`, '</table>');
    }
    if (listed.length > 0) {
      html.push(
        `<ul>${listed.map((a) => `<li>[${escapeHtml(a.severity)}] ${escapeHtml(a.summary)}</li>`).join('')}</ul>`,
      );
    }
    if (hidden > 0) html.push(`<p>${escapeHtml(hiddenNote(hidden))}</p>`);
  }
  html.push(`<p><small>${escapeHtml(silenceHint(notification))}</small></p>`, '</body></html>');
  return { subject: subjectOf(notification), text: text.join('\n'), html: html.join('\n') };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
