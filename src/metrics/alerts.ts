import { Counter, Gauge } from 'prom-client';
import { ALERT_RULES } from '../config/sections/alerts.js';
import { firingAlerts } from '../db/alerts.js';
import { outboxCounts } from '../db/notifications.js';
import type { Finding } from '../rules/finding.js';
import type { MetricsContext } from './source.js';

const SEVERITIES = ['info', 'warning', 'critical'] as const satisfies ReadonlyArray<Finding['severity']>;

/**
 * podwarden's own alerts and their email, from the alerts table and the durable outbox: how
 * many alerts fire now per rule and severity (every pair present, 0 when none), and what became
 * of every message written (counted from the outbox, so the totals survive restarts).
 */
export function registerAlertMetrics({ registry, source }: MetricsContext): void {
  const firing: Gauge<'rule' | 'severity'> = new Gauge({
    name: 'podwarden_alerts_firing',
    help: "Alerts of podwarden's rules firing now, by rule and severity.",
    labelNames: ['rule', 'severity'],
    registers: [registry],
    collect() {
      firing.reset();
      for (const rule of ALERT_RULES) for (const severity of SEVERITIES) firing.set({ rule, severity }, 0);
      for (const alert of firingAlerts(source.db)) firing.inc({ rule: alert.rule, severity: alert.severity });
    },
  });

  const emails: Counter<'outcome'> = new Counter({
    name: 'podwarden_emails_total',
    help: 'Alert emails by outcome: sent (the SMTP server accepted it) or abandoned (not sent before the give-up time, or no recipients).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const counts = outboxCounts(source.db);
      emails.reset();
      emails.inc({ outcome: 'sent' }, counts.sent);
      emails.inc({ outcome: 'abandoned' }, counts.abandoned);
    },
  });
  const queued: Gauge = new Gauge({
    name: 'podwarden_emails_queued',
    help: 'Alert emails in the outbox waiting for their first attempt or a retry.',
    registers: [registry],
    collect() {
      queued.set(outboxCounts(source.db).pending);
    },
  });
  const oldest: Gauge = new Gauge({
    name: 'podwarden_emails_oldest_queued_timestamp_seconds',
    help: 'When the oldest email still waiting in the outbox was written, as a Unix time; 0 when none waits.',
    registers: [registry],
    collect() {
      oldest.set((outboxCounts(source.db).oldestPendingAt ?? 0) / 1000);
    },
  });
}
