import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/**
 * Everything the email pipeline's planning reads from the database (alerts/notify.ts), as one
 * text: the fired episodes still open and every episode a log entry announced (each with the
 * fields planning looks at: not the summary or details, which only a message it writes shows),
 * the notification log, the silences not over at `now`, and the flaps of those episodes or still
 * open. JSON-encoded, so equal texts mean equal inputs; whoever wrote them, from any connection.
 */
const statement = perDatabase(({ sqlite }) =>
  sqlite
    .prepare<[number], [string, string, string, string]>(
      `WITH planned AS (
         SELECT id, key, rule, account, severity, labels, recipients, fired_at, resolved_at FROM alerts
         WHERE (resolved_at IS NULL AND fired_at IS NOT NULL)
            OR id IN (SELECT announced.value FROM notification_log, json_each(notification_log.firing) AS announced)
       )
       SELECT
         (SELECT json_group_array(json_array(id, key, rule, account, severity, labels, recipients, fired_at, resolved_at))
            FROM (SELECT * FROM planned ORDER BY id)),
         (SELECT json_group_array(json_array(group_key, receiver, firing, resolved, notified_at, expires_at))
            FROM (SELECT * FROM notification_log ORDER BY group_key)),
         (SELECT json_group_array(json_array(id, matchers, starts_at, ends_at))
            FROM (SELECT * FROM silences WHERE ends_at > ? ORDER BY id)),
         (SELECT json_group_array(json_array(id, key, since, last_change_at, noticed_at, settled_at))
            FROM (SELECT * FROM alert_flaps WHERE settled_at IS NULL OR key IN (SELECT key FROM planned) ORDER BY id))`,
    )
    .raw(),
);

export function planningInputs(database: Database, now: number): string {
  return (statement(database).get(now) ?? []).join('\n');
}
