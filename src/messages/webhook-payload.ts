import type { NotifyAlert } from '../alerts/alert.js';
import type { DigestNotice, FlappingNotice } from '../alerts/notices.js';
import { announcedAlerts } from '../alerts/outbox.js';
import type { Notification } from '../alerts/pipeline.js';
import { toIso } from '../clock.js';
import { alertView } from './alert-view.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { digestView } from './digest.js';
import { bySeverity, emailView, resolvedView } from './email.js';
import { flappingView } from './flapping.js';
import type { Action, AlertData, RenderContext } from './view.js';

/**
 * The webhook's JSON (docs/webhooks.md, docs/webhook-payload.v1.schema.json): the data of the
 * notices email tells, headlines worded by the same views. A field's meaning never changes
 * within a version; a change that would break a receiver is version 2.
 */

export const WEBHOOK_PAYLOAD_VERSION = 1;

/** A group of hundreds of alerts stays one small POST: the first ones, and how many were left out. */
const LISTED = 200;

export interface WebhookAlert {
  key: string;
  rule: string;
  account: string;
  status: 'firing' | 'resolved';
  /** Whether this message announces it (new, repeated or resolved), or it is only still firing. */
  announced: boolean;
  severity: string;
  labels: Record<string, string>;
  summary: string;
  headline: string;
  startsAt: string;
  endsAt: string | null;
  /** The rule's figures (the finding's details), as the rule wrote them. */
  figures: Record<string, unknown>;
}

export interface WebhookPayload {
  version: typeof WEBHOOK_PAYLOAD_VERSION;
  /** One per notification and destination, the same on every attempt: receivers dedupe by it. */
  deliveryId: string;
  kind: 'notification' | 'flapping' | 'digest';
  /** Why it was written: first, new_alerts, repeat_elapsed, new_resolved, all_resolved, flapping, digest. */
  reason: string;
  groupKey: string;
  status: 'firing' | 'resolved';
  /** What email puts in its subject. */
  headline: string;
  /** When podwarden decided it. */
  createdAt: string;
  alerts: WebhookAlert[];
  /** Alerts of the group left out of `alerts` (beyond the first 200). */
  omittedAlerts: number;
  /** Signed links to confirmation pages (Keep running, Silence): a GET shows, only a POST acts. */
  actions: Array<{ label: string; url: string }>;
  flapping?: {
    since: string;
    fires: number;
    windowMs: number;
    heldShare: number;
    costPerHr: number | null;
    costPerDay: number | null;
  };
  digest?: {
    account: string;
    since: string;
    savings: Array<{ podId: string; podName: string; dryRun: boolean; savingPerHr: number; saved: number }>;
    flapping: string[];
  };
}

type AlertInput = AlertData & { key: string };

function webhookAlert(alert: AlertInput, announced: boolean, ctx: RenderContext): WebhookAlert {
  return {
    key: alert.key,
    rule: alert.rule,
    account: alert.account,
    status: alert.resolvedAt === null ? 'firing' : 'resolved',
    announced,
    severity: alert.severity,
    labels: alert.labels,
    summary: alert.summary,
    // As email titles it: a resolved alert says what ended, not the figures it fired with.
    headline: (alert.resolvedAt === null ? alertView(alert, ctx) : resolvedView(alert, ctx)).headline,
    startsAt: toIso(alert.firedAt),
    endsAt: alert.resolvedAt === null ? null : toIso(alert.resolvedAt),
    figures: alert.details,
  };
}

function listed(alerts: WebhookAlert[]): Pick<WebhookPayload, 'alerts' | 'omittedAlerts'> {
  return { alerts: alerts.slice(0, LISTED), omittedAlerts: Math.max(0, alerts.length - LISTED) };
}

const actionsOf = (actions: readonly Action[]) => actions.map(({ label, href }) => ({ label, url: href }));

/** A group's notification: its announced alerts first (the most severe first), then the others still firing. */
export function notificationPayload(
  notification: Notification,
  deliveryId: string,
  options: { actions?: Action[]; commandLine?: CommandLine } = {},
): WebhookPayload {
  const commandLine = options.commandLine ?? BARE_COMMAND_LINE;
  const ctx: RenderContext = { now: notification.now, timeZone: 'UTC', commandLine };
  const announced = [...announcedAlerts(notification)].sort(bySeverity);
  const ids = new Set(announced.map((alert) => alert.id));
  const others = [...notification.firing, ...notification.resolved].filter((alert) => !ids.has(alert.id));
  const resolved = notification.reason === 'new_resolved' || notification.reason === 'all_resolved';
  const alerts = [
    ...announced.map((alert) => webhookAlert(alert, true, ctx)),
    ...others.sort(bySeverity).map((alert: NotifyAlert) => webhookAlert(alert, false, ctx)),
  ];
  return {
    version: WEBHOOK_PAYLOAD_VERSION,
    deliveryId,
    kind: 'notification',
    reason: notification.reason,
    groupKey: notification.groupKey,
    status: resolved ? 'resolved' : 'firing',
    headline: emailView(notification, { actions: options.actions, commandLine }).subject,
    createdAt: toIso(notification.now),
    ...listed(alerts),
    actions: actionsOf(options.actions ?? []),
  };
}

/** One key fires and resolves over and over: said once (its latest episode as the alert). */
export function flappingPayload(notice: FlappingNotice, deliveryId: string, commandLine?: CommandLine): WebhookPayload {
  const ctx: RenderContext = { now: notice.now, timeZone: 'UTC', commandLine: commandLine ?? BARE_COMMAND_LINE };
  const alert = { ...notice, severity: 'info', firedAt: notice.since, resolvedAt: null };
  return {
    version: WEBHOOK_PAYLOAD_VERSION,
    deliveryId,
    kind: 'flapping',
    reason: 'flapping',
    groupKey: `flapping:${notice.key}`,
    status: 'firing',
    headline: flappingView(notice, 'UTC', commandLine).subject,
    createdAt: toIso(notice.now),
    ...listed([webhookAlert(alert, true, ctx)]),
    actions: [],
    flapping: {
      since: toIso(notice.since),
      fires: notice.fires,
      windowMs: notice.windowMs,
      heldShare: notice.heldShare,
      costPerHr: notice.costPerHr,
      costPerDay: notice.costPerDay,
    },
  };
}

/** The daily digest of one account: what is still open and what the stops saved. */
export function digestPayload(notice: DigestNotice, deliveryId: string, commandLine?: CommandLine): WebhookPayload {
  const ctx: RenderContext = {
    now: notice.now,
    timeZone: notice.timeZone,
    commandLine: commandLine ?? BARE_COMMAND_LINE,
  };
  return {
    version: WEBHOOK_PAYLOAD_VERSION,
    deliveryId,
    kind: 'digest',
    reason: 'digest',
    groupKey: `digest:${notice.account}`,
    status: notice.open.length > 0 ? 'firing' : 'resolved',
    headline: digestView(notice, commandLine).subject,
    createdAt: toIso(notice.now),
    ...listed(notice.open.map((alert) => webhookAlert(alert, true, ctx))),
    actions: [],
    digest: {
      account: notice.account,
      since: toIso(notice.since),
      savings: notice.savings.map(({ podId, podName, dryRun, savingPerHr, saved }) => ({
        podId,
        podName,
        dryRun,
        savingPerHr,
        saved,
      })),
      flapping: notice.flapping.map((flap) => flap.key),
    },
  };
}
