import type { SilenceRecord } from '../db/silences.js';
import type { NotifyAlert } from './alert.js';
import { type LogEntry, type NotifyReason, needsUpdate } from './dedupe.js';
import { type AlertGroup, groupAlerts } from './group.js';
import { muteInhibited } from './inhibit.js';
import type { AlertSettings } from './settings.js';
import { muteSilenced } from './silence.js';

/** What one group's next message must say (STYLE §5.4's NotifyContext, plus the reason). */
export interface Notification {
  groupKey: string;
  receiver: string[];
  reason: NotifyReason;
  /** Every firing alert of the group; `fresh` are those its last message did not announce. */
  firing: NotifyAlert[];
  fresh: NotifyAlert[];
  resolved: NotifyAlert[];
  repeatIntervalMs: number;
  now: number;
}

export interface PipelineInput {
  /** Fired episodes still open. */
  firing: NotifyAlert[];
  /** Episodes announced as firing by a group's last message and resolved since. */
  resolved: NotifyAlert[];
  silences: readonly SilenceRecord[];
  /** The notification log: each group's last message, expired entries left out. */
  log: ReadonlyMap<string, LogEntry>;
  settings: AlertSettings;
  /**
   * An alert's recipients on the channel planned for, or undefined when it does not go there
   * (`alerts.routes`, else `alerts.route` and the rule's recipients: route.ts).
   */
  recipients(alert: NotifyAlert): readonly string[] | undefined;
  now: number;
}

/**
 * One channel's pipeline up to its outbox, as pure stages: route, inhibit, silence, group, then per group
 * the timing gate (group wait, group interval) and dedupe against the notification log. Returns
 * the messages to queue; queueing and sending are the outbox's.
 */
export function planNotifications(input: PipelineInput): Notification[] {
  const { settings, now } = input;
  // Each alert carries its recipients on this channel, so grouping keys on them.
  let batch = [...input.firing, ...input.resolved.filter((alert) => settings.sendResolved(alert.rule))].flatMap(
    (alert) => {
      const recipients = input.recipients(alert);
      return recipients === undefined ? [] : [{ ...alert, recipients: [...recipients] }];
    },
  );
  if (settings.inhibit) batch = muteInhibited(batch);
  batch = muteSilenced(batch, input.silences, now);
  const notifications: Notification[] = [];
  for (const group of groupAlerts(batch, settings.groupBy)) {
    const entry = input.log.get(group.groupKey) ?? null;
    if (!isDue(group, entry, settings, now)) continue;
    const repeatIntervalMs = Math.min(...group.firing.map((alert) => settings.repeatMs(alert.rule)));
    const firingIds = new Set(group.firing.map((alert) => alert.id));
    const resolvedIds = new Set(group.resolved.map((alert) => alert.id));
    const reason = needsUpdate(entry, firingIds, resolvedIds, repeatIntervalMs, now);
    if (reason === 'none') continue;
    notifications.push({
      groupKey: group.groupKey,
      receiver: group.receiver,
      reason,
      firing: group.firing,
      fresh: group.firing.filter((alert) => !entry?.firing.has(alert.id)),
      resolved: group.resolved,
      repeatIntervalMs,
      now,
    });
  }
  return notifications;
}

/**
 * A group that has been quiet waits `groupWait` after its first new alert fired, so alerts that
 * fire together go out together; a group already talking sends at most every `groupInterval`.
 */
function isDue(group: AlertGroup, entry: LogEntry | null, settings: AlertSettings, now: number): boolean {
  if (entry !== null && entry.firing.size > 0) return now >= entry.notifiedAt + settings.groupIntervalMs;
  const fresh = group.firing.filter((alert) => !entry?.firing.has(alert.id));
  if (fresh.length === 0) return entry === null || now >= entry.notifiedAt + settings.groupIntervalMs;
  return now >= Math.min(...fresh.map((alert) => alert.firedAt)) + settings.groupWaitMs;
}
