import { type LiveFigures, liveFiguresOf } from './alert-figures.js';
import type { Database } from './open.js';
import type { alertFlaps, alerts } from './schema.js';
import { perDatabase } from './statements.js';

export type AlertRecord = typeof alerts.$inferSelect;
export type FlapRecord = typeof alertFlaps.$inferSelect;

/**
 * Alert rows read as arrays through statements prepared once, decoded here: every evaluation
 * tick reads the open alerts two or three times (state, pipeline, Alertmanager), and drizzle's
 * row mapping, above all JSON.parse of each alert's details, cost more than the reads. A JSON
 * column is parsed again only when its text changed since the row was last read, so a tick
 * parses each alert its rules refreshed once, not once per read.
 */
export const ALERT_COLUMNS = `id, key, rule, account, severity, summary, labels, details, recipients,
  active_since, last_seen_at, fired_at, resolved_at, absent_since`;

/**
 * The same columns but the details (read as NULL): every tick rewrites each open alert's details
 * (findings carry when they were evaluated), and the pipeline plans on every firing alert but
 * renders only those of a message it writes. At `large` (about 1,000 firing alerts) reading and
 * parsing the details was half of reading the firing alerts.
 */
export const ALERT_COLUMNS_BUT_DETAILS = ALERT_COLUMNS.replace('details,', 'NULL,');

/**
 * The details of a record read without them. Frozen and shared, so code that would show them
 * can tell (alerts/notify.ts reads the full records of what it renders, and checks).
 */
export const DETAILS_NOT_READ: AlertRecord['details'] = Object.freeze({});

type AlertRow = [
  id: number,
  key: string,
  rule: string,
  account: string,
  severity: string,
  summary: string,
  labels: string,
  /** NULL when read with ALERT_COLUMNS_BUT_DETAILS. */
  details: string | null,
  recipients: string | null,
  activeSince: number,
  lastSeenAt: number,
  firedAt: number | null,
  resolvedAt: number | null,
  absentSince: number | null,
];

interface Parsed {
  labels: string;
  labelsValue: AlertRecord['labels'];
  details: string;
  detailsValue: AlertRecord['details'];
  recipients: string | null;
  recipientsValue: AlertRecord['recipients'];
}

/**
 * The last parse of each alert's JSON columns, by id, per database. Emptied when it grows past
 * this: resolved alerts are read for a while (announced ones, flap episodes) and then no more.
 */
const PARSED_LIMIT = 20_000;
const parsedOf = perDatabase(() => new Map<number, Parsed>());

/**
 * The record of a row, as drizzle would map it. The JSON values may be shared with earlier reads
 * of an unchanged row: callers must not modify them (none does; alerts are rebuilt, not edited).
 */
function toRecord(cache: Map<number, Parsed>, row: AlertRow, live: LiveFigures | undefined): AlertRecord {
  const [id, key, rule, account, severity, summary, labels, stored, recipients] = row;
  // The figures this process holds (alert-figures.ts) replace the row's older ones: their JSON
  // text is then neither parsed nor kept.
  const details = live === undefined ? stored : null;
  let parsed = cache.get(id);
  if (parsed === undefined) {
    if (cache.size >= PARSED_LIMIT) cache.clear();
    parsed = {
      labels,
      labelsValue: JSON.parse(labels),
      details: details ?? '',
      detailsValue: details === null ? DETAILS_NOT_READ : JSON.parse(details),
      recipients,
      recipientsValue: recipients === null ? null : JSON.parse(recipients),
    };
    cache.set(id, parsed);
  } else {
    if (parsed.labels !== labels) {
      parsed.labels = labels;
      parsed.labelsValue = JSON.parse(labels);
    }
    if (details !== null && parsed.details !== details) {
      parsed.details = details;
      parsed.detailsValue = JSON.parse(details);
    }
    if (parsed.recipients !== recipients) {
      parsed.recipients = recipients;
      parsed.recipientsValue = recipients === null ? null : JSON.parse(recipients);
    }
  }
  return {
    id,
    key,
    rule,
    account,
    severity,
    summary: live?.summary ?? summary,
    labels: parsed.labelsValue,
    details: stored === null ? DETAILS_NOT_READ : (live?.details ?? parsed.detailsValue),
    recipients: parsed.recipientsValue,
    activeSince: row[9],
    lastSeenAt: live?.lastSeenAt ?? row[10],
    firedAt: row[11],
    resolvedAt: row[12],
    absentSince: row[13],
  };
}

/**
 * Whether `labels` encode as the stored JSON text `stored` (JSON.stringify(labels) === stored),
 * without encoding them: folding a tick's findings asks this of every open alert every tick, and
 * the labels rarely change. Compared key by key, in order, with the parse of `stored` kept with
 * the records' (only string values: anything else is encoded to be sure).
 */
export function labelsEncodeAs(database: Database, id: number, labels: AlertRecord['labels'], stored: string): boolean {
  const cache = parsedOf(database);
  let parsed = cache.get(id);
  if (parsed === undefined || parsed.labels !== stored) {
    if (parsed === undefined && cache.size >= PARSED_LIMIT) cache.clear();
    parsed = parsed ?? {
      labels: stored,
      labelsValue: {},
      details: '',
      detailsValue: DETAILS_NOT_READ,
      recipients: null,
      recipientsValue: null,
    };
    parsed.labels = stored;
    parsed.labelsValue = JSON.parse(stored);
    cache.set(id, parsed);
  }
  const keys = Object.keys(parsed.labelsValue);
  let index = 0;
  for (const key in labels) {
    const value = labels[key];
    if (keys[index] !== key || typeof value !== 'string' || value !== parsed.labelsValue[key]) {
      return JSON.stringify(labels) === stored;
    }
    index += 1;
  }
  return index === keys.length || JSON.stringify(labels) === stored;
}

/** A prepared read of alert rows (`sql` selects ALERT_COLUMNS), returning records. */
export function alertRead<P extends unknown[]>(sql: string): (database: Database, ...params: P) => AlertRecord[] {
  const statement = perDatabase(({ sqlite }) => sqlite.prepare<P, AlertRow>(sql).raw());
  return (database, ...params) => {
    const cache = parsedOf(database);
    return statement(database)
      .all(...params)
      .map((row) => toRecord(cache, row, liveFiguresOf(database, row[0], row[1], row[10])));
  };
}

const FLAP_COLUMNS = 'id, key, rule, account, since, last_change_at, noticed_at, settled_at';
type FlapRow = [number, string, string, string, number, number, number | null, number | null];

/** A prepared read of flap rows (`sql` selects FLAP_COLUMNS from alert_flaps). */
export function flapRead<P extends unknown[]>(where: string): (database: Database, ...params: P) => FlapRecord[] {
  const statement = perDatabase(({ sqlite }) =>
    sqlite.prepare<P, FlapRow>(`SELECT ${FLAP_COLUMNS} FROM alert_flaps WHERE ${where}`).raw(),
  );
  return (database, ...params) =>
    statement(database)
      .all(...params)
      .map(([id, key, rule, account, since, lastChangeAt, noticedAt, settledAt]) => ({
        id,
        key,
        rule,
        account,
        since,
        lastChangeAt,
        noticedAt,
        settledAt,
      }));
}
