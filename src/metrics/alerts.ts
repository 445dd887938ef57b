import { Counter, Gauge } from 'prom-client';
import { ALERT_RULES } from '../config/sections/alerts.js';
import { firingAlertsButDetails } from '../db/alerts.js';
import { outboxCountsByAccount } from '../db/notifications.js';
import type { Finding } from '../rules/finding.js';
import { counter, gauge } from './account-series.js';
import { type MetricsContext, metricAccounts } from './source.js';

const SEVERITIES = ['info', 'warning', 'critical'] as const satisfies ReadonlyArray<Finding['severity']>;

/**
 * Firing alerts (every triple at 0 when none) and what became of their email, counted from the
 * outbox so the totals survive restarts; set on the evaluation tick, where both move.
 */
export function registerAlertMetrics({ registry, source, config, refreshOn }: MetricsContext): void {
  const accounts = metricAccounts(config);
  const firing: Gauge<'account' | 'rule' | 'severity'> = gauge(registry, {
    name: 'podwarden_alerts_firing',
    help: "Alerts of podwarden's rules firing now, by account (all for a budget over every account), rule and severity.",
    labelNames: ['account', 'rule', 'severity'],
  });

  const emails: Counter<'account' | 'outcome'> = counter(registry, {
    name: 'podwarden_emails_total',
    help: 'Alert emails by account (all when a message spans accounts) and outcome: sent (the SMTP server accepted it) or abandoned (not sent before the give-up time, or no recipients).',
    labelNames: ['account', 'outcome'],
  });
  const queued: Gauge<'account'> = gauge(registry, {
    name: 'podwarden_emails_queued',
    help: 'Alert emails in the outbox waiting for their first attempt or a retry, by account (all when a message spans accounts).',
    labelNames: ['account'],
  });
  const oldest: Gauge<'account'> = gauge(registry, {
    name: 'podwarden_emails_oldest_queued_timestamp_seconds',
    help: 'When the oldest email still waiting in the outbox was written, as a Unix time, by account; 0 when none waits.',
    labelNames: ['account'],
  });
  refreshOn(['tick'], async () => {
    const outbox = await outboxCountsByAccount(source.db);
    firing.reset();
    for (const account of accounts)
      for (const rule of ALERT_RULES) for (const severity of SEVERITIES) firing.set({ account, rule, severity }, 0);
    for (const alert of await firingAlertsButDetails(source.db)) {
      firing.inc({ account: alert.account, rule: alert.rule, severity: alert.severity });
    }
    for (const series of [emails, queued, oldest]) series.reset();
    // Every account's series at 0 first, then what the outbox holds.
    const zeros = accounts.map((account) => ({ account, sent: 0, abandoned: 0, pending: 0, oldestPendingAt: null }));
    for (const { account, sent, abandoned, pending, oldestPendingAt } of [...zeros, ...outbox]) {
      emails.inc({ account, outcome: 'sent' }, sent);
      emails.inc({ account, outcome: 'abandoned' }, abandoned);
      queued.set({ account }, pending);
      oldest.set({ account }, (oldestPendingAt ?? 0) / 1000);
    }
  });
}
