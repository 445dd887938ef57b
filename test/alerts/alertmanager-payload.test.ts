import { describe, expect, it } from 'vitest';
import { alertName, toPostableAlert } from '../../src/channels/alertmanager-payload.js';
import type { AlertmanagerConfig } from '../../src/config/sections/alertmanager.js';
import type { AlertRecord } from '../../src/db/alerts.js';
import { renderMessage } from '../../src/messages/email.js';
import { alertDescription, alertSummary } from '../../src/messages/summary.js';
import { ALERTS } from '../messages/fixtures.js';
import { MINUTE, START } from './support.js';

const IDLE = ALERTS['idle-notify'] as NonNullable<(typeof ALERTS)[string]>;

const alertmanager: AlertmanagerConfig = {
  urls: ['http://am:9093'],
  timeoutMs: 10_000,
  resendIntervalMs: MINUTE,
  runbookUrls: { idle: 'https://wiki.example.com/idle' },
};

const record: AlertRecord = {
  id: 7,
  key: 'idle:sim:pod-1',
  rule: 'idle',
  account: 'sim',
  severity: 'info',
  // An idle alert as the rule writes it (summary and figures), from the golden emails' fixtures.
  summary: IDLE.summary,
  // A rule label named like one podwarden sets is overridden: the alert's own values win.
  labels: { rule: 'idle', account: 'sim', pod_id: 'pod-1', severity: 'bogus' },
  details: IDLE.details,
  recipients: null,
  activeSince: START,
  lastSeenAt: START + 5 * MINUTE,
  firedAt: START,
  resolvedAt: null,
  absentSince: null,
};

describe('the alert Alertmanager is sent', () => {
  it('names podwarden alerts Podwarden<Rule>', () => {
    expect(['budget', 'idle', 'capacity', 'waste', 'health'].map(alertName)).toEqual([
      'PodwardenBudget',
      'PodwardenIdle',
      'PodwardenCapacity',
      'PodwardenWaste',
      'PodwardenHealth',
    ]);
  });

  it('firing: labels, the words of the email, endsAt four resend intervals ahead', () => {
    const now = START + 5 * MINUTE;
    const alert = toPostableAlert(record, { alertmanager, publicUrl: undefined, now });
    expect(alert).toEqual({
      labels: { rule: 'idle', account: 'sim', pod_id: 'pod-1', severity: 'info', alertname: 'PodwardenIdle' },
      annotations: {
        summary: alertSummary({ ...record, firedAt: START }),
        description: alertDescription({ ...record, firedAt: START }, now),
        runbook_url: 'https://wiki.example.com/idle',
      },
      startsAt: '2026-11-02T00:00:00Z',
      endsAt: '2026-11-02T00:09:00Z',
    });
    // The same lines as the alert's block in its email.
    const email = renderMessage({
      groupKey: 'g',
      receiver: [],
      reason: 'first',
      firing: [{ ...record, firedAt: START, recipients: [] }],
      fresh: [{ ...record, firedAt: START, recipients: [] }],
      resolved: [],
      repeatIntervalMs: Number.POSITIVE_INFINITY,
      now,
    });
    // The email's words: its subject line, and its lead sentences and details, line for line.
    // The same words; the email adds the account Alertmanager carries as a label.
    expect(email.subject).toBe(`[${record.account}] ${alert.annotations.summary}`);
    const lines = alert.annotations.description?.split('\n').filter((line) => line.trim() !== '') ?? [];
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines) expect(email.text).toContain(line);
    // Figures as a person reads them, never as fields.
    expect(alert.annotations.description).not.toMatch(/costPerHr|stopsAt|0\.69\b(?!\/h)/);
  });

  it('resolved: endsAt is the resolve time, and the status page is the generator', () => {
    const resolvedAt = START + 20 * MINUTE;
    const alert = toPostableAlert(
      { ...record, resolvedAt },
      { alertmanager, publicUrl: 'https://pw.example.com', now: START + 30 * MINUTE },
    );
    expect(alert.endsAt).toBe('2026-11-02T00:20:00Z');
    expect(alert.annotations).toMatchObject({
      summary: alertSummary({ ...record, firedAt: START, resolvedAt }),
      description: alertDescription({ ...record, firedAt: START, resolvedAt }, START + 30 * MINUTE),
    });
    expect(alert.generatorURL).toBe('https://pw.example.com/');
  });

  it('refuses an episode that never fired', () => {
    expect(() =>
      toPostableAlert({ ...record, firedAt: null }, { alertmanager, publicUrl: undefined, now: START }),
    ).toThrow('alert idle:sim:pod-1 never fired');
  });
});
