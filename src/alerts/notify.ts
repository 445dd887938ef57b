import {
  alertsById,
  DETAILS_NOT_READ,
  type FlapRecord,
  firedEpisodesOf,
  firingAlertsButDetails,
  flapsOf,
  openFlaps,
  resolvedAlertsById,
  updateFlap,
} from '../db/alerts.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import { type LogRecord, notificationLogAt } from '../db/notifications.js';
import type { Database } from '../db/open.js';
import { keepQuietPlan, planningInputs, planningState, type QuietPlanRecord } from '../db/plan-inputs.js';
import { listSilencesSync, type SilenceRecord } from '../db/silences.js';
import { type NotifyAlert, toNotifyAlert } from './alert.js';
import type { LogEntry } from './dedupe.js';
import { flapPattern, mutedByFlap } from './flapping.js';
import type { FlappingNotice } from './notices.js';
import { type MessageRenderer, queueNotice, queueNotifications } from './outbox.js';
import { type Notification, planNotifications } from './pipeline.js';
import { nextPlanChange, stillQuiet } from './quiet.js';
import type { AlertSettings } from './settings.js';
import { muteSilenced } from './silence.js';

/**
 * Runs the pipeline on the stored alerts for each message channel and queues what it decides,
 * rendered by the channel, reading and writing in one transaction: the outbox rows and the
 * notification-log entries commit together or not at all. Each channel plans the alerts routed
 * to it against its own notification log. Episodes of a flapping key are left out; its one
 * flapping notice is queued instead.
 *
 * A tick whose planning inputs and settings are those of the last plan, which decided nothing,
 * and that comes before any time that plan's decision could turn (quiet.ts), is not planned
 * again: it would decide nothing too. That plan is kept in the database (plan_changes), so it
 * holds for every connection and across a restart; it is read every tick in one row, the inputs
 * themselves only when it plans.
 */
export async function notify(
  database: Database,
  settings: AlertSettings,
  now: number,
  renderers: readonly MessageRenderer[],
): Promise<OutboxRow[]> {
  // Quiet decides nothing, so nothing needs the planning transaction's view: asked first, outside
  // it, a quiet tick costs one read instead of a BEGIN and a COMMIT around it.
  const state = await planningState(database);
  if (stillQuiet(state, settings, now)) return [];
  let quiet: QuietPlanRecord | undefined;
  const queued = database.transaction(() => {
    const inputs = planningInputs(database);
    const defaults = settings.defaultRecipients;
    const ready = (list: ReturnType<typeof firingAlertsButDetails>) =>
      list.flatMap((record) => toNotifyAlert(record, defaults) ?? []) as NotifyAlert[];
    // Planned without their details (rewritten every tick, needed only to render a message).
    const firing = ready(firingAlertsButDetails(database));
    const logs = renderers.map((renderer) => notificationLogAt(database, now, renderer.channel));
    const announced = [...new Set(logs.flatMap((log) => [...log.values()].flatMap((row) => row.firing)))];
    const resolved = ready(resolvedAlertsById(database, announced));
    const flaps = flapsOf(database, [...new Set([...firing, ...resolved].map((alert) => alert.key))]);
    const unmuted = (alert: NotifyAlert) => !mutedByFlap(alert, flaps, now);
    const silences = listSilencesSync(database, now);
    const queued: OutboxRow[] = [];
    let decided = 0;
    renderers.forEach((renderer, index) => {
      const logRows = logs[index] as Map<string, LogRecord>;
      const log = new Map<string, LogEntry>(
        [...logRows].map(([groupKey, row]) => [
          groupKey,
          { firing: new Set(row.firing), resolved: new Set(row.resolved), notifiedAt: row.notifiedAt },
        ]),
      );
      const plan = planNotifications({
        firing: firing.filter(unmuted),
        resolved: resolved.filter(unmuted),
        silences,
        log,
        settings,
        routed: (rule) => settings.routedTo(rule, renderer.channel),
        now,
      });
      const notifications = withDetails(database, plan, defaults);
      decided += notifications.length;
      queued.push(...queueNotifications(database, notifications, renderer));
    });
    let noticed = false;
    for (const flap of openFlaps(database).values()) {
      if (flap.noticedAt !== null) continue;
      noticed = true;
      const notice = flappingNotice(database, flap, settings, silences, now);
      updateFlap(database, flap.id, { noticedAt: now });
      if (!notice) continue;
      // Every message channel is told, whatever the rule's route: the notice says why its
      // episodes go quiet, and the digest carries it.
      for (const renderer of renderers) {
        queued.push(
          queueNotice(database, {
            channel: renderer.channel,
            groupKey: `flapping:${flap.key}`,
            reason: 'flapping',
            account: flap.account,
            rendered: renderer.flapping(notice),
            alertKeys: [flap.key],
            now,
          }),
        );
      }
    }
    if (decided === 0 && !noticed) {
      quiet = {
        inputs,
        settings: settings.fingerprint,
        from: now,
        until: nextPlanChange({
          log: logs.flatMap((log) => [...log.values()]),
          firing,
          resolved,
          silences,
          flaps,
          settings,
          now,
        }),
      };
    }
    return queued;
  });
  // Kept once the plan committed: its inputs' count says whether anything changed since, by any
  // connection. A plan that decided something changed its inputs; the one kept is forgotten.
  if (quiet !== undefined || state.quiet !== undefined) await keepQuietPlan(database, quiet);
  return queued;
}

/**
 * The notifications with each alert read in full, details included, for rendering: one read of
 * the alerts they carry, in the transaction that planned them.
 */
function withDetails(database: Database, notifications: Notification[], defaults: readonly string[]): Notification[] {
  const missing = new Set<number>();
  for (const notification of notifications) {
    for (const alert of [...notification.firing, ...notification.resolved]) {
      if (alert.details === DETAILS_NOT_READ) missing.add(alert.id);
    }
  }
  if (missing.size === 0) return notifications;
  const full = new Map(
    alertsById(database, [...missing]).flatMap((record) => {
      const alert = toNotifyAlert(record, defaults);
      return alert ? [[record.id, alert] as const] : [];
    }),
  );
  const read = (alert: NotifyAlert): NotifyAlert => {
    if (alert.details !== DETAILS_NOT_READ) return alert;
    const found = full.get(alert.id);
    if (!found) throw new Error(`alert ${alert.key} (id ${alert.id}) vanished while its message was planned`);
    return found;
  };
  return notifications.map((notification) => ({
    ...notification,
    firing: notification.firing.map(read),
    fresh: notification.fresh.map(read),
    resolved: notification.resolved.map(read),
  }));
}

/** The notice of a flap, from its key's episodes over the window; none when silenced. */
export function flappingNotice(
  database: Database,
  flap: FlapRecord,
  settings: AlertSettings,
  silences: readonly SilenceRecord[],
  now: number,
): FlappingNotice | undefined {
  const { windowMs } = settings.flapping;
  const episodes = firedEpisodesOf(database, flap.key, now - 2 * windowMs);
  const latestRecord = episodes.at(-1);
  const latest = latestRecord ? toNotifyAlert(latestRecord, settings.defaultRecipients) : undefined;
  if (!latest || muteSilenced([latest], silences, now).length === 0) return undefined;
  const pattern = flapPattern(episodes, now, windowMs);
  const cost = latest.details.costPerHr;
  const costPerHr = typeof cost === 'number' && Number.isFinite(cost) ? cost : null;
  return {
    kind: 'flapping',
    key: flap.key,
    rule: flap.rule,
    account: flap.account,
    labels: latest.labels,
    summary: latest.summary,
    details: latest.details,
    since: flap.since,
    ...pattern,
    windowMs,
    costPerHr,
    costPerDay: costPerHr === null ? null : costPerHr * pattern.heldShare * 24,
    recipients: latest.recipients,
    now,
  };
}
