import { toNotifyAlert } from '../alerts/alert.js';
import { toIso } from '../clock.js';
import type { AlertmanagerConfig } from '../config/sections/alertmanager.js';
import type { AlertRecord } from '../db/alerts.js';
import type { CommandLine } from '../messages/commands.js';
import { alertDescription, alertSummary } from '../messages/summary.js';

/** One alert as Alertmanager's API v2 takes it (`postableAlert` of its OpenAPI document). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}

/**
 * A firing alert says it ends this many resend intervals ahead (Prometheus uses 4): missing
 * three resends in a row is not enough for Alertmanager to resolve it, a stopped podwarden is.
 */
export const ENDS_AFTER_RESENDS = 4;

/** `budget` → `PodwardenBudget`: podwarden's alerts are told apart from Prometheus' by name. */
export function alertName(rule: string): string {
  return `Podwarden${rule.charAt(0).toUpperCase()}${rule.slice(1)}`;
}

export interface PayloadOptions {
  alertmanager: AlertmanagerConfig;
  /** `http.publicUrl`: where people reach podwarden's pages, if they can. */
  publicUrl: string | undefined;
  now: number;
  /** How the commands in the description run this podwarden. */
  commandLine?: CommandLine;
}

/**
 * The alert Alertmanager is told at `now`. Labels identify it (Alertmanager fingerprints them,
 * so a resend updates the same alert): the rule's labels, then `alertname`, `severity` and
 * `account`. A firing alert ends `ENDS_AFTER_RESENDS` intervals ahead; a resolved one at the
 * time it resolved, so Alertmanager marks it resolved at once.
 */
export function toPostableAlert(record: AlertRecord, options: PayloadOptions): PostableAlert {
  const alert = toNotifyAlert(record, []);
  if (alert === undefined) throw new Error(`alert ${record.key} never fired: nothing to tell Alertmanager`);
  const { alertmanager, now } = options;
  const runbook = (alertmanager.runbookUrls as Partial<Record<string, string>>)[alert.rule];
  const endsAt = alert.resolvedAt ?? now + ENDS_AFTER_RESENDS * alertmanager.resendIntervalMs;
  return {
    labels: {
      ...alert.labels,
      alertname: alertName(alert.rule),
      severity: alert.severity,
      account: alert.account,
    },
    // The email's subject line and lead sentences with the details, not its footer: it names the
    // send time, which would change the annotation on every resend.
    annotations: {
      summary: alertSummary(alert),
      description: alertDescription(alert, now, 'UTC', options.commandLine),
      ...(runbook === undefined ? {} : { runbook_url: runbook }),
    },
    startsAt: toIso(alert.firedAt),
    endsAt: toIso(endsAt),
    // The status page, where the alert's figures and Pods are (`http.publicUrl` has no trailing slash).
    ...(options.publicUrl === undefined ? {} : { generatorURL: `${options.publicUrl}/` }),
  };
}
