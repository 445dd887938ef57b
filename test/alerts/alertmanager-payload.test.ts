import { describe, expect, it } from 'vitest';
import { alertName, toPostableAlert } from '../../src/alerts/alertmanager-payload.js';
import { renderMessage } from '../../src/alerts/templates.js';
import type { AlertmanagerConfig } from '../../src/config/sections/alertmanager.js';
import type { AlertRecord } from '../../src/db/alerts.js';
import { MINUTE, START } from './support.js';

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
  summary: 'Pod nb-1 (pod-1) idle for 45m at $0.69/h',
  // A rule label named like one podwarden sets is overridden: the alert's own values win.
  labels: { rule: 'idle', account: 'sim', pod_id: 'pod-1', severity: 'bogus' },
  details: { costPerHr: 0.69, stopsAt: '2026-11-02T01:00:00Z', evidence: ['gpu 0%', 'cpu 1%'] },
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
        summary: 'Pod nb-1 (pod-1) idle for 45m at $0.69/h',
        description: [
          '[info] Pod nb-1 (pod-1) idle for 45m at $0.69/h',
          'firing since 2026-11-02T00:00:00Z',
          'costPerHr: 0.69',
          'stopsAt: 2026-11-02T01:00:00Z',
          'evidence:',
          '  - gpu 0%',
          '  - cpu 1%',
          'key: idle:sim:pod-1',
        ].join('\n'),
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
    }).text;
    for (const line of alert.annotations.description?.split('\n') ?? []) expect(email).toContain(line);
  });

  it('resolved: endsAt is the resolve time, and the status page is the generator', () => {
    const resolvedAt = START + 20 * MINUTE;
    const alert = toPostableAlert(
      { ...record, resolvedAt },
      { alertmanager, publicUrl: 'https://pw.example.com', now: START + 30 * MINUTE },
    );
    expect(alert.endsAt).toBe('2026-11-02T00:20:00Z');
    expect(alert.annotations.description).toContain('fired 2026-11-02T00:00:00Z, resolved 2026-11-02T00:20:00Z');
    expect(alert.generatorURL).toBe('https://pw.example.com/');
  });

  it('refuses an episode that never fired', () => {
    expect(() =>
      toPostableAlert({ ...record, firedAt: null }, { alertmanager, publicUrl: undefined, now: START }),
    ).toThrow('alert idle:sim:pod-1 never fired');
  });
});
