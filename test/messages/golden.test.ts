import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NotifyAlert } from '../../src/alerts/alert.js';
import { emailLinks } from '../../src/links/email-links.js';
import { readToken } from '../../src/links/token.js';
import { renderMessage, SUBJECT_MAX } from '../../src/messages/email.js';
import { renderDigest, renderFlappingNotice } from '../../src/messages/notices.js';
import { alertDescription, alertSummary } from '../../src/messages/summary.js';
import {
  ALERTS,
  DIGEST,
  ENFORCE_ALERTS,
  FLAPPING,
  firstNotification,
  idleGroupedNotification,
  NOW,
  resolvedNotification,
} from './fixtures.js';

/**
 * Every kind of email, text and HTML, against golden files: a change to a message is a reviewed
 * diff. `UPDATE_GOLDEN=1 npx vitest run test/messages/golden.test.ts` rewrites them.
 */
const GOLDEN = resolve('test', 'golden', 'email');
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (update || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

/** What a person must never read: field names, milliseconds, floats with their binary tail. */
function expectReadable(text: string): void {
  expect(text).not.toMatch(/\b[a-z]+[A-Z][A-Za-z]*(Ms|Hr|At|Id)\b/);
  expect(text).not.toMatch(/\d\.\d{3,}/);
  expect(text).not.toMatch(/\d{5,}/);
  expect(text).not.toContain('undefined');
  expect(text).not.toContain('NaN');
}

/** Links as the daemon makes them with `http.publicUrl` set, with counted nonces so the files stay put. */
const LINK_SECRET = Buffer.from('golden-link-secret-0001');
function withLinks(notification: ReturnType<typeof firstNotification>) {
  let count = 0;
  const links = emailLinks({
    publicUrl: 'https://podwarden.example.com',
    secret: LINK_SECRET,
    expiryMs: 24 * 3_600_000,
    timeZone: 'Europe/Berlin',
    nonce: () => `nonce-${++count}`,
    episodeOf: () => NOW - 30 * 60_000,
  });
  return renderMessage(notification, { actions: links(notification) });
}
const twoRecipients = (alert: unknown) => ({
  ...firstNotification(alert as never),
  receiver: ['ana@example.com', 'ml-team@example.com'],
});

const MESSAGES: Record<string, ReturnType<typeof renderMessage>> = {
  ...Object.fromEntries(Object.entries(ALERTS).map(([name, alert]) => [name, renderMessage(firstNotification(alert))])),
  'idle-resolved': renderMessage(resolvedNotification(ALERTS['idle-notify'] as never)),
  'budget-resolved': renderMessage(resolvedNotification(ALERTS['budget-spent'] as never)),
  'idle-warn-links': withLinks(firstNotification(ALERTS['idle-warn'] as never)),
  ...Object.fromEntries(
    Object.entries(ENFORCE_ALERTS).map(([name, alert]) => [name, renderMessage(firstNotification(alert))]),
  ),
  'enforce-deadline-warn-links': withLinks(firstNotification(ENFORCE_ALERTS['enforce-deadline-warn'] as never)),
  'enforce-schedule-warn-links': withLinks(firstNotification(ENFORCE_ALERTS['enforce-schedule-warn'] as never)),
  'idle-notify-links': withLinks(twoRecipients(ALERTS['idle-notify'])),
  'budget-spent-links': withLinks(firstNotification(ALERTS['budget-spent'] as never)),
  'idle-grouped': renderMessage(idleGroupedNotification()),
  'idle-grouped-links': withLinks(idleGroupedNotification()),
  flapping: renderFlappingNotice(FLAPPING),
  digest: renderDigest(DIGEST),
  'digest-held': renderDigest({
    ...DIGEST,
    held: [
      {
        kind: 'snooze',
        account: 'team',
        subject: 'q8w3e5r7',
        name: 'sdxl-lora-sweep',
        until: NOW + 2 * 3_600_000,
        createdAt: NOW - 600_000,
        source: 'email link',
        createdBy: 'ana@example.com, ml-team@example.com',
      },
      {
        kind: 'silence',
        account: 'team',
        subject: 'rule=waste account=team check=stopped-pod-volume',
        name: null,
        until: NOW + 24 * 3_600_000,
        createdAt: NOW - 3_600_000,
        source: 'command',
        createdBy: 'bob',
      },
    ],
  }),
};

describe('golden emails', () => {
  for (const [name, message] of Object.entries(MESSAGES)) {
    it(`${name}: subject, text and HTML as reviewed`, () => {
      expect(message.subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
      expectReadable(message.subject);
      expectReadable(message.text);
      golden(`${name}.txt`, `Subject: ${message.subject}\n\n${message.text}`);
      golden(`${name}.html`, message.html);
    });
  }

  it('carry links only with a public URL; each link is signed, for its subject, recipients and label', () => {
    for (const name of Object.keys(ALERTS)) expect(MESSAGES[name]?.text).not.toContain('https://');
    const text = MESSAGES['idle-notify-links']?.text ?? '';
    const links = [...text.matchAll(/^(.+):\n {2}(https:\/\/\S+)$/gm)].map(([, label, href]) => {
      const url = new URL(href as string);
      const reading = readToken(LINK_SECRET, url.searchParams.get('t') ?? '');
      if (!reading.ok) throw new Error(`${label}: ${reading.reason}`);
      const { action, subject, label: said, recipient, durationMs, until, expiresAt } = reading.claims;
      return { label, path: url.pathname, action, subject, said, recipient, durationMs, until, expiresAt };
    });
    const HOUR = 3_600_000;
    const pod = '/pods/team/q8w3e5r7/keep-running';
    const alert = `/alerts/team/${encodeURIComponent(ALERTS['idle-notify']?.key ?? '')}/silence`;
    const who = 'ana@example.com, ml-team@example.com';
    const tomorrow9 = Date.parse('2026-11-03T08:00:00Z');
    expect(links).toEqual([
      {
        label: 'Keep running 2 h',
        path: pod,
        action: 'keep-running',
        subject: 'q8w3e5r7',
        said: '2 h',
        recipient: who,
        durationMs: 2 * HOUR,
        until: NOW + 2 * HOUR,
        expiresAt: NOW + 24 * HOUR,
      },
      {
        label: 'Keep running 8 h',
        path: pod,
        action: 'keep-running',
        subject: 'q8w3e5r7',
        said: '8 h',
        recipient: who,
        durationMs: 8 * HOUR,
        until: NOW + 8 * HOUR,
        expiresAt: NOW + 24 * HOUR,
      },
      {
        label: 'Keep running until tomorrow 09:00 CET',
        path: pod,
        action: 'keep-running',
        subject: 'q8w3e5r7',
        said: 'until tomorrow 09:00 CET',
        recipient: who,
        durationMs: null,
        until: tomorrow9,
        expiresAt: tomorrow9,
      },
      {
        label: 'Silence for 4 h',
        path: alert,
        action: 'silence',
        subject: ALERTS['idle-notify']?.key,
        said: '4 h',
        recipient: who,
        durationMs: 4 * HOUR,
        until: NOW + 4 * HOUR,
        expiresAt: NOW + 24 * HOUR,
      },
      {
        label: 'Silence for 24 h',
        path: alert,
        action: 'silence',
        subject: ALERTS['idle-notify']?.key,
        said: '24 h',
        recipient: who,
        durationMs: 24 * HOUR,
        until: NOW + 24 * HOUR,
        expiresAt: NOW + 24 * HOUR,
      },
    ]);
    // A stopped Pod is not offered to keep running; a budget alert only to silence.
    expect(withLinks(firstNotification(ALERTS['idle-stop'] as never)).text).not.toContain('Keep running');
    expect(MESSAGES['budget-spent-links']?.text).not.toContain('Keep running');
    expect(MESSAGES['budget-spent-links']?.text).toContain(
      'Silence for 24 h:\n  https://podwarden.example.com/alerts/',
    );
  });

  it('name the account in every subject, so two accounts never send the same one', () => {
    for (const [name, message] of Object.entries(MESSAGES)) expect(message.subject, name).toMatch(/^\[team\] /);
    const elsewhere = (alert: NotifyAlert, account: string): NotifyAlert => ({
      ...alert,
      account,
      labels: { ...alert.labels, account },
    });
    const warn = ALERTS['idle-warn'] as NotifyAlert;
    const subjects = ['prod', 'staging'].map(
      (account) => renderMessage(firstNotification(elsewhere(warn, account))).subject,
    );
    expect(subjects[0]).toMatch(/^\[prod\] Pod sdxl-lora-sweep /);
    expect(subjects[1]).toBe(subjects[0]?.replace('[prod]', '[staging]'));
    const flapping = ['prod', 'staging'].map((account) => renderFlappingNotice({ ...FLAPPING, account }).subject);
    expect(flapping[0]).not.toBe(flapping[1]);
    const digests = ['prod', 'staging'].map((account) => renderDigest({ ...DIGEST, account }).subject);
    expect(digests[0]).not.toBe(digests[1]);
    // A budget over every account says so.
    const all = ALERTS['budget-spent'] as NotifyAlert;
    expect(renderMessage(firstNotification(elsewhere(all, 'all'))).subject).toMatch(/^\[all accounts\] Budget /);
  });

  it('say one idle Pod once: its table, commands and exclusion once, its Silence links for the warning', () => {
    const text = MESSAGES['idle-grouped-links']?.text ?? '';
    const count = (what: string) => text.split(what).length - 1;
    expect(count('Idle since  '), text).toBe(1);
    expect(count('\nCommands\n')).toBe(1);
    expect(count('To exclude the Pod for good')).toBe(1);
    // What the held notice adds to the warning stays: the memory it holds.
    expect(count('GPU memory in use over the same window')).toBe(1);
    expect(MESSAGES['idle-grouped-links']?.subject).not.toContain('more');
    // The Silence links under the warning are for the warning (the most severe alert of the Pod).
    const silences = [...text.matchAll(/^Silence[^\n]*:\n {2}(https:\/\/\S+)$/gm)].map(([, href]) => {
      const reading = readToken(LINK_SECRET, new URL(href as string).searchParams.get('t') ?? '');
      if (!reading.ok) throw new Error(reading.reason);
      return reading.claims.subject;
    });
    expect(silences).toEqual([ALERTS['idle-warn']?.key, ALERTS['idle-warn']?.key]);
  });

  it('give a capacity change its price and data center', () => {
    const text = MESSAGES.capacity?.text ?? '';
    expect(text).toMatch(/Price +\$3\.99\/h secure cloud, \$3\.29\/h community cloud/);
    expect(text).toMatch(/Data center +US-KS-2/);
  });

  it('give other outputs (Alertmanager) the same one-line summary and plain description', () => {
    const alert = ALERTS['budget-spent'];
    if (!alert) throw new Error('fixture missing');
    // The same words without the account, which Alertmanager carries as a label.
    expect(`[team] ${alertSummary(alert)}`).toBe(MESSAGES['budget-spent']?.subject);
    const description = alertDescription(alert, NOW);
    expect(description).toContain('gpu-daily');
    expect(description).not.toContain('first notification');
    expectReadable(description);
  });
});
