import { type AlertRecord, alertsById, DETAILS_NOT_READ, type FlapRecord, firedEpisodesOf } from '../db/alerts.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import type { Database } from '../db/open.js';
import {
  type NotifyInputs,
  type PlannedMessage,
  planningState,
  readNotifyInputs,
  writeNotifications,
} from '../db/plan-inputs.js';
import { listSilences, type SilenceRecord } from '../db/silences.js';
import { type NotifyAlert, toNotifyAlert } from './alert.js';
import type { LogEntry } from './dedupe.js';
import { flapPattern, mutedByFlap } from './flapping.js';
import type { FlappingNotice } from './notices.js';
import { type MessageRenderer, noticeRows, notificationMessages } from './outbox.js';
import { type Notification, planNotifications } from './pipeline.js';
import { nextPlanChange, stillQuiet } from './quiet.js';
import type { AlertSettings } from './settings.js';
import { muteSilenced } from './silence.js';

/**
 * Runs the pipeline on the stored alerts routed to each message channel, against the channel's
 * own notification log, and queues what it decides, rendered by the channel. The outbox rows and
 * log entries commit in one transaction, planned again if another writer changed the inputs in
 * between. A flapping key's episodes are left out; its one flapping notice is queued instead.
 * A tick within the kept quiet plan (same inputs and settings, before its decision could turn:
 * quiet.ts) plans nothing; that plan is a database row (plan_changes), so it survives restarts.
 */
export async function notify(
  database: Database,
  settings: AlertSettings,
  now: number,
  renderers: readonly MessageRenderer[],
): Promise<OutboxRow[]> {
  for (;;) {
    const state = await planningState(database);
    if (stillQuiet(state, settings, now)) return [];
    const inputs = await readNotifyInputs(
      database,
      now,
      renderers.map((renderer) => renderer.channel),
    );
    // Read after the count, as the inputs: a change in between is one the write refuses.
    const silences = await listSilences(database, now);
    const { plans, quiet } = planAll(inputs, silences, settings, now, renderers);
    const full = await withDetails(database, plans.flat(), settings.defaultRecipients);
    const messages: PlannedMessage[] = renderers.flatMap((renderer, index) =>
      (plans[index] as Notification[]).flatMap((notification) => notificationMessages(full(notification), renderer)),
    );
    for (const flap of inputs.unnoticed) {
      const notice = await flappingNotice(database, flap, settings, silences, now);
      if (!notice) continue;
      // Every message channel is told, whatever the rule's route: the notice says why its
      // episodes go quiet, and the digest carries it.
      for (const renderer of renderers) {
        const rows = noticeRows({
          channel: renderer.channel,
          groupKey: `flapping:${flap.key}`,
          reason: 'flapping',
          account: flap.account,
          // To whoever the flapping alert's route names on this channel, else its default recipients.
          rendered: renderer.flapping({
            ...notice,
            recipients: [...(settings.recipientsOn(notice, renderer.channel) ?? notice.recipients)],
          }),
          alertKeys: [flap.key],
          now,
        });
        messages.push(...rows.map((row) => ({ row })));
      }
    }
    const written = await writeNotifications(database, state.inputs, {
      messages,
      noticed: inputs.unnoticed,
      now,
      quiet: quiet && { ...quiet, inputs: state.inputs },
      // A plan that decided something changed its inputs: the one kept is forgotten.
      forget: state.quiet !== undefined,
    });
    if (written) return written;
  }
}

/**
 * Each channel's notifications (their alerts without details), and the quiet plan when none
 * decides anything and no flap is to be told.
 */
function planAll(
  inputs: NotifyInputs,
  silences: readonly SilenceRecord[],
  settings: AlertSettings,
  now: number,
  renderers: readonly MessageRenderer[],
): { plans: Notification[][]; quiet?: { settings: string; from: number; until: number } } {
  const ready = (list: readonly AlertRecord[]) =>
    list.flatMap((record) => toNotifyAlert(record, settings.defaultRecipients) ?? []);
  const firing = ready(inputs.firing);
  const resolved = ready(inputs.resolved);
  const unmuted = (alert: NotifyAlert) => !mutedByFlap(alert, inputs.flaps, now);
  const plans = renderers.map((renderer, index) => {
    const logRows = inputs.logs[index] ?? new Map();
    const log = new Map<string, LogEntry>(
      [...logRows].map(([groupKey, row]) => [
        groupKey,
        { firing: new Set(row.firing), resolved: new Set(row.resolved), notifiedAt: row.notifiedAt },
      ]),
    );
    return planNotifications({
      firing: firing.filter(unmuted),
      resolved: resolved.filter(unmuted),
      silences,
      log,
      settings,
      recipients: (alert) => settings.recipientsOn(alert, renderer.channel),
      now,
    });
  });
  if (plans.some((plan) => plan.length > 0) || inputs.unnoticed.length > 0) return { plans };
  const until = nextPlanChange({
    log: inputs.logs.flatMap((log) => [...log.values()]),
    firing,
    resolved,
    silences,
    flaps: inputs.flaps,
    settings,
    now,
  });
  return { plans, quiet: { settings: settings.fingerprint, from: now, until } };
}

/**
 * The notifications with each alert read in full, details included, for rendering: one read of
 * the alerts they carry.
 */
async function withDetails(
  database: Database,
  notifications: readonly Notification[],
  defaults: readonly string[],
): Promise<(notification: Notification) => Notification> {
  const missing = new Set<number>();
  for (const notification of notifications) {
    for (const alert of [...notification.firing, ...notification.resolved]) {
      if (alert.details === DETAILS_NOT_READ) missing.add(alert.id);
    }
  }
  const full = new Map(
    (missing.size === 0 ? [] : await alertsById(database, [...missing])).flatMap((record) => {
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
  return (notification) => ({
    ...notification,
    firing: notification.firing.map(read),
    fresh: notification.fresh.map(read),
    resolved: notification.resolved.map(read),
  });
}

/** The notice of a flap, from its key's episodes over the window; none when silenced. */
export async function flappingNotice(
  database: Database,
  flap: FlapRecord,
  settings: AlertSettings,
  silences: readonly SilenceRecord[],
  now: number,
): Promise<FlappingNotice | undefined> {
  const { windowMs } = settings.flapping;
  const episodes = await firedEpisodesOf(database, flap.key, now - 2 * windowMs);
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
