import type { Database } from './open.js';
import { perDatabase } from './statements.js';

/**
 * A fingerprint of everything the email pipeline's planning reads from the database
 * (alerts/notify.ts): the fired episodes still open and every episode a log entry announced, with
 * the fields planning looks at (not the summary or details, which only a message it writes
 * shows), the notification log, the silences and the flaps. Equal fingerprints mean equal inputs.
 *
 * It used to be those inputs themselves, encoded as JSON by one query every tick: at `large`
 * (about a thousand firing alerts) that query was a fifth of the alert step, for a text of 200 kB.
 * Now this connection counts its own changes to those inputs with TEMP triggers (a count in a TEMP
 * table, written in the transaction that made the change, so a rollback takes the count back with
 * the change), and SQLite's data_version moves with any other connection's commit. The triggers
 * live only on this connection and are made again whenever they are missing (a table dropped and
 * made again by a migration takes its triggers with it; a rollback of the transaction that made
 * them takes them too), and making them moves the count.
 */
const COUNT_TABLE = 'podwarden_plan_changes';
const bump = `BEGIN UPDATE ${COUNT_TABLE} SET n = n + 1; END`;
const ALERT_FIELDS = ['id', 'key', 'rule', 'account', 'severity', 'labels', 'recipients', 'fired_at', 'resolved_at'];
const TRIGGERS: Record<string, string> = {
  alerts_insert: `AFTER INSERT ON alerts ${bump}`,
  alerts_delete: `AFTER DELETE ON alerts ${bump}`,
  // Every tick rewrites each open alert's figures: only a change to a field planning reads counts
  // (and an UPDATE that sets none of them does not run the trigger at all).
  alerts_update: `AFTER UPDATE OF ${ALERT_FIELDS.join(', ')} ON alerts WHEN ${ALERT_FIELDS.map((f) => `OLD.${f} IS NOT NEW.${f}`).join(' OR ')} ${bump}`,
};
for (const table of ['notification_log', 'silences', 'alert_flaps']) {
  for (const event of ['insert', 'update', 'delete']) {
    TRIGGERS[`${table}_${event}`] = `AFTER ${event.toUpperCase()} ON ${table} ${bump}`;
  }
}
const TRIGGER_COUNT = Object.keys(TRIGGERS).length;

const SET_UP = [
  `CREATE TEMP TABLE IF NOT EXISTS ${COUNT_TABLE} (n INTEGER NOT NULL)`,
  `INSERT INTO ${COUNT_TABLE} SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM ${COUNT_TABLE})`,
  ...Object.entries(TRIGGERS).map(([name, body]) => `CREATE TEMP TRIGGER IF NOT EXISTS podwarden_plan_${name} ${body}`),
  `UPDATE ${COUNT_TABLE} SET n = n + 1`,
].join(';\n');

const statement = perDatabase(({ sqlite }) => {
  sqlite.exec(SET_UP);
  return sqlite
    .prepare<[], [number, number, number]>(
      `SELECT (SELECT data_version FROM pragma_data_version),
         (SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger' AND name GLOB 'podwarden_plan_*'),
         (SELECT n FROM temp.${COUNT_TABLE})`,
    )
    .raw();
});

function read(database: Database): [number, number, number] | undefined {
  try {
    return statement(database).get();
  } catch (error) {
    // The count's table is gone with a rolled-back transaction that made it: made again below.
    if (error instanceof Error && /no such table/.test(error.message)) return undefined;
    throw error;
  }
}

export function planningInputs(database: Database): string {
  let row = read(database);
  if (row === undefined || row[1] !== TRIGGER_COUNT) {
    database.sqlite.exec(SET_UP);
    row = read(database);
    if (row === undefined || row[1] !== TRIGGER_COUNT) throw new Error('could not watch the planning inputs');
  }
  return `${row[0]}:${row[2]}`;
}
