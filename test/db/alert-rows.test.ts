import { asc } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  type AlertChange,
  type AlertInput,
  alertsById,
  applyAlertChanges,
  DETAILS_NOT_READ,
  firedEpisodesOf,
  firingAlerts,
  firingAlertsButDetails,
  openAlertOf,
  readAlertStates,
  resolvedAlertsById,
} from '../../src/db/alerts.js';
import type { Database } from '../../src/db/open.js';
import { alerts } from '../../src/db/schema.js';
import { insertAlert, markAlertResolved } from '../helpers/store.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;

function input(key: string, overrides: Partial<AlertInput> = {}): AlertInput {
  return {
    key,
    rule: 'idle',
    account: 'main',
    severity: 'warning',
    summary: `${key} idles`,
    labels: { podId: key, rule: 'idle', account: 'main' },
    details: { kind: 'idle', idleSince: T0, utilization: { gpu: [0, 1, null], threshold: 5 }, note: 'é "quoted"' },
    recipients: null,
    activeSince: T0,
    lastSeenAt: T0,
    firedAt: null,
    ...overrides,
  };
}

/** Applies changes as a tick does, in one planned write (flaps out of reach). */
async function apply(db: Database, now: number, ...changes: AlertChange[]): Promise<void> {
  const { version } = await readAlertStates(db);
  expect(await applyAlertChanges(db, version, changes, now, { count: 1000, windowMs: MIN })).toBe(true);
}
const markAlertFired = (db: Database, id: number, at: number) =>
  apply(db, at, { kind: 'fire', alert: { id, key: '', rule: 'idle', account: 'main' } });
const markAlertAbsent = (db: Database, id: number, at: number) => apply(db, at, { kind: 'absent', id });
const refreshAlert = (db: Database, id: number, fields: Extract<AlertChange, { kind: 'refresh' }>['fields']) =>
  apply(db, T0, { kind: 'refresh', id, fields });

/** Every row as drizzle maps it: what the alert reads returned before they read arrays. */
const drizzleRows = (db: Database) => db.db.select().from(alerts).orderBy(asc(alerts.id)).all();

describe('alert rows read as arrays', () => {
  it('decode to exactly what drizzle maps, across every read and write', async () => {
    const db = databases.open();
    const a = await insertAlert(db, input('a', { firedAt: T0 }));
    const b = await insertAlert(db, input('b', { recipients: ['ops@example.com'], details: {} }));
    const c = await insertAlert(db, input('c', { recipients: [], labels: {} }));
    expect([a, b, c]).toEqual(drizzleRows(db));
    await markAlertFired(db, b.id, T0 + MIN);
    await markAlertAbsent(db, c.id, T0 + MIN);
    await markAlertResolved(db, c.id, T0 + 2 * MIN);
    await markAlertAbsent(db, a.id, T0 + MIN);
    await refreshAlert(db, a.id, {
      severity: 'critical',
      summary: 'a idles more',
      labels: { podId: 'a', rule: 'idle', account: 'main', extra: '1' },
      details: { kind: 'idle', idleSince: T0 - MIN },
      recipients: ['x@example.com'],
      lastSeenAt: T0 + 2 * MIN,
    });
    const rows = drizzleRows(db);
    const [ra, rb, rc] = rows;
    expect(await alertsById(db, [a.id, b.id, c.id])).toEqual(rows);
    expect([await openAlertOf(db, 'a'), await openAlertOf(db, 'b')]).toEqual([ra, rb]);
    expect(await firingAlerts(db)).toEqual([ra, rb]);
    expect(await resolvedAlertsById(db, [a.id, c.id])).toEqual([rc]);
    expect(await openAlertOf(db, 'b')).toEqual(rb);
    expect(await openAlertOf(db, 'c')).toBeUndefined();
    expect(await firedEpisodesOf(db, 'a', T0)).toEqual([ra]);
    expect(ra?.absentSince).toBeNull();
    // What recordFindings reads of the open ones: the labels as their stored text.
    expect((await readAlertStates(db)).open).toEqual(
      [ra, rb].map((row) => ({
        id: row?.id,
        key: row?.key,
        rule: row?.rule,
        account: row?.account,
        severity: row?.severity,
        labels: JSON.stringify(row?.labels),
        recipients: row?.recipients == null ? null : JSON.stringify(row.recipients),
        activeSince: row?.activeSince,
        firedAt: row?.firedAt,
        absentSince: row?.absentSince,
      })),
    );
    // Counted from the index alone: each fire counts its key's episodes in the flap window.
    const plan = db.sqlite
      .prepare('EXPLAIN QUERY PLAN SELECT count(*) FROM alerts WHERE key = ? AND fired_at >= ?')
      .all('a', T0) as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([
      'SEARCH alerts USING COVERING INDEX alerts_key_fired_at_idx (key=? AND fired_at>?)',
    ]);
    // Recipients back to none: SQL NULL, as drizzle writes it.
    await refreshAlert(db, b.id, { ...input('b'), recipients: null, lastSeenAt: T0 + 3 * MIN });
    expect(drizzleRows(db)[1]?.recipients).toBeNull();
    expect(await alertsById(db, [a.id, b.id])).toEqual(drizzleRows(db).slice(0, 2));
  });

  it('read a JSON column as it is now, whoever wrote it', async () => {
    const db = databases.open();
    const a = await insertAlert(db, input('a'));
    await refreshAlert(db, a.id, {
      ...input('a'),
      details: { kind: 'idle', idleSince: T0 + MIN },
      lastSeenAt: T0 + MIN,
    });
    expect((await openAlertOf(db, 'a'))?.details).toEqual({ kind: 'idle', idleSince: T0 + MIN });
    // A write this file did not make, on another connection: read as it is now.
    const other = databases.open();
    other.sqlite.prepare(`UPDATE alerts SET details = '{"by":"cli"}', labels = '{"x":"y"}' WHERE id = ?`).run(a.id);
    expect(await openAlertOf(db, 'a')).toMatchObject({ details: { by: 'cli' }, labels: { x: 'y' } });
  });

  it('leave the details out when asked, and read them in full again after', async () => {
    const db = databases.open();
    await insertAlert(db, input('a', { firedAt: T0 }));
    await insertAlert(db, input('b', { firedAt: T0, details: { kind: 'budget' } }));
    const brief = await firingAlertsButDetails(db);
    expect(brief.map((alert) => alert.details)).toEqual([DETAILS_NOT_READ, DETAILS_NOT_READ]);
    expect(brief.map(({ details: _, ...rest }) => rest)).toEqual(
      (await firingAlerts(db)).map(({ details: _, ...rest }) => rest),
    );
    expect(await firingAlerts(db)).toEqual(drizzleRows(db));
    expect((await firingAlertsButDetails(db))[1]?.details).toBe(DETAILS_NOT_READ);
  });

  it('read what is committed after a rollback', async () => {
    const db = databases.open();
    const a = await insertAlert(db, input('a'));
    // A write that fails after a refresh (JSON.stringify throws on a BigInt) rolls back whole.
    const { version } = await readAlertStates(db);
    await expect(
      applyAlertChanges(
        db,
        version,
        [
          { kind: 'refresh', id: a.id, fields: { ...input('a'), details: { rolled: 'back' }, lastSeenAt: T0 + MIN } },
          { kind: 'open', input: input('b', { details: { paid: 1n } }) },
        ],
        T0 + MIN,
        { count: 1000, windowMs: MIN },
      ),
    ).rejects.toThrow(/BigInt/);
    expect(await alertsById(db, [a.id])).toEqual(drizzleRows(db));
    expect((await openAlertOf(db, 'a'))?.details).toEqual(input('a').details);
    // The rolled-back row's id is taken by the next insert, with its own figures.
    const c = await insertAlert(db, input('c', { details: { kind: 'budget' } }));
    expect((await alertsById(db, [c.id]))[0]?.details).toEqual({ kind: 'budget' });
  });
});
