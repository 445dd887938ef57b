import { alertsById, firingAlerts } from '../db/alerts.js';
import { notificationLogAt, type OutboxRecord } from '../db/notifications.js';
import type { Database } from '../db/open.js';
import { listSilences } from '../db/silences.js';
import { type NotifyAlert, toNotifyAlert } from './alert.js';
import type { LogEntry } from './dedupe.js';
import { queueNotifications } from './outbox.js';
import { planNotifications } from './pipeline.js';
import type { AlertSettings } from './settings.js';

/**
 * Runs the pipeline on the stored alerts and queues what it decides, reading and writing in one
 * transaction: the outbox rows and the notification-log entries commit together or not at all.
 */
export function notify(
  database: Database,
  settings: AlertSettings,
  now: number,
  messageDomain: string,
): OutboxRecord[] {
  return database.transaction(() => {
    const defaults = settings.defaultRecipients;
    const ready = (list: ReturnType<typeof firingAlerts>) =>
      list.flatMap((record) => toNotifyAlert(record, defaults) ?? []) as NotifyAlert[];
    const logRows = notificationLogAt(database, now);
    const log = new Map<string, LogEntry>(
      [...logRows].map(([groupKey, row]) => [
        groupKey,
        { firing: new Set(row.firing), resolved: new Set(row.resolved), notifiedAt: row.notifiedAt },
      ]),
    );
    const announced = [...new Set([...logRows.values()].flatMap((row) => row.firing))];
    const resolved = ready(alertsById(database, announced).filter((record) => record.resolvedAt !== null));
    const notifications = planNotifications({
      firing: ready(firingAlerts(database)),
      resolved,
      silences: listSilences(database, now),
      log,
      settings,
      now,
    });
    return queueNotifications(database, notifications, messageDomain);
  });
}
