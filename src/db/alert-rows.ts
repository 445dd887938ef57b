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

type AlertRow = [
  id: number,
  key: string,
  rule: string,
  account: string,
  severity: string,
  summary: string,
  labels: string,
  details: string,
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
  /** NOT_PARSED until something reads the details of this text. */
  detailsValue: AlertRecord['details'] | typeof NOT_PARSED;
  recipients: string | null;
  recipientsValue: AlertRecord['recipients'];
}

const NOT_PARSED = Symbol('not parsed');

/**
 * The last parse of each alert's JSON columns, by id, per database. Emptied when it grows past
 * this: resolved alerts are read for a while (announced ones, flap episodes) and then no more.
 */
const PARSED_LIMIT = 20_000;
const parsedOf = perDatabase(() => new Map<number, Parsed>());

/**
 * The record of a row, as drizzle would map it. Its `details` are parsed when first read: every
 * tick rewrites them (each finding carries when it was evaluated), and most ticks read no alert's
 * details (they matter when a message is written). The parsed values may be shared with earlier
 * reads of an unchanged row: callers must not modify them (none does; alerts are rebuilt, not
 * edited).
 */
function toRecord(cache: Map<number, Parsed>, row: AlertRow): AlertRecord {
  const [id, key, rule, account, severity, summary, labels, details, recipients] = row;
  let parsed = cache.get(id);
  if (parsed === undefined) {
    if (cache.size >= PARSED_LIMIT) cache.clear();
    parsed = {
      labels,
      labelsValue: JSON.parse(labels),
      details,
      detailsValue: NOT_PARSED,
      recipients,
      recipientsValue: recipients === null ? null : JSON.parse(recipients),
    };
    cache.set(id, parsed);
  } else {
    if (parsed.labels !== labels) {
      parsed.labels = labels;
      parsed.labelsValue = JSON.parse(labels);
    }
    if (parsed.details !== details) {
      parsed.details = details;
      parsed.detailsValue = NOT_PARSED;
    }
    if (parsed.recipients !== recipients) {
      parsed.recipients = recipients;
      parsed.recipientsValue = recipients === null ? null : JSON.parse(recipients);
    }
  }
  const record: AlertRecord = {
    id,
    key,
    rule,
    account,
    severity,
    summary,
    labels: parsed.labelsValue,
    details: {},
    recipients: parsed.recipientsValue,
    activeSince: row[9],
    lastSeenAt: row[10],
    firedAt: row[11],
    resolvedAt: row[12],
    absentSince: row[13],
  };
  const entry = parsed;
  return defineDetails(record, () => {
    // The entry may have moved on to a newer text of the row since this record was read.
    if (entry.details !== details) return JSON.parse(details);
    if (entry.detailsValue === NOT_PARSED) entry.detailsValue = JSON.parse(details);
    return entry.detailsValue;
  });
}

/**
 * Gives `target` the details of `record` (a record read here, or any other): read lazily when
 * the record's are, so copying a record (alerts/alert.ts) does not parse them.
 */
export function withDetailsOf<T extends object>(
  target: T,
  record: Pick<AlertRecord, 'details'>,
): T & Pick<AlertRecord, 'details'> {
  const read = lazyDetails.get(record);
  if (read === undefined) return Object.assign(target, { details: record.details });
  return defineDetails(target as T & Pick<AlertRecord, 'details'>, read);
}

const lazyDetails = new WeakMap<object, () => AlertRecord['details']>();

/** An own, enumerable `details` (spread, JSON and equality see it as a plain value), parsed once. */
function defineDetails<T extends Pick<AlertRecord, 'details'>>(target: T, parse: () => AlertRecord['details']): T {
  let value: AlertRecord['details'] | undefined;
  const read = () => {
    value ??= parse();
    return value;
  };
  Object.defineProperty(target, 'details', {
    enumerable: true,
    configurable: true,
    get: read,
    set(next: AlertRecord['details']) {
      Object.defineProperty(target, 'details', { value: next, enumerable: true, configurable: true, writable: true });
    },
  });
  lazyDetails.set(target, read);
  return target;
}

/** A prepared read of alert rows (`sql` selects ALERT_COLUMNS), returning records. */
export function alertRead<P extends unknown[]>(sql: string): (database: Database, ...params: P) => AlertRecord[] {
  const statement = perDatabase(({ sqlite }) => sqlite.prepare<P, AlertRow>(sql).raw());
  return (database, ...params) => {
    const cache = parsedOf(database);
    return statement(database)
      .all(...params)
      .map((row) => toRecord(cache, row));
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
