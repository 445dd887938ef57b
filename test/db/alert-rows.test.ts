import { asc } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  type AlertInput,
  alertsById,
  DETAILS_NOT_READ,
  firedCountSince,
  firedEpisodesOf,
  firingAlerts,
  firingAlertsButDetails,
  insertAlert,
  markAlertAbsent,
  markAlertFired,
  markAlertResolved,
  openAlertOf,
  openAlertStates,
  openAlerts,
  openAlertsButDetails,
  openFlap,
  openFlapOf,
  openFlaps,
  refreshAlert,
  resolvedAlertsById,
  updateFlap,
} from '../../src/db/alerts.js';
import type { Database } from '../../src/db/open.js';
import { alerts } from '../../src/db/schema.js';
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

/** Every row as drizzle maps it: what the alert reads returned before they read arrays. */
const drizzleRows = (db: Database) => db.db.select().from(alerts).orderBy(asc(alerts.id)).all();

describe('alert rows read as arrays', () => {
  it('decode to exactly what drizzle maps, across every read and write', () => {
    const db = databases.open();
    const a = insertAlert(db, input('a', { firedAt: T0 }));
    const b = insertAlert(db, input('b', { recipients: ['ops@example.com'], details: {} }));
    const c = insertAlert(db, input('c', { recipients: [], labels: {} }));
    expect([a, b, c]).toEqual(drizzleRows(db));
    markAlertFired(db, b.id, T0 + MIN);
    markAlertAbsent(db, c.id, T0 + MIN);
    markAlertResolved(db, c.id, T0 + 2 * MIN);
    markAlertAbsent(db, a.id, T0 + MIN);
    refreshAlert(db, a.id, {
      severity: 'critical',
      summary: 'a idles more',
      labels: { podId: 'a', rule: 'idle', account: 'main', extra: '1' },
      details: { kind: 'idle', idleSince: T0 - MIN },
      recipients: ['x@example.com'],
      lastSeenAt: T0 + 2 * MIN,
    });
    const rows = drizzleRows(db);
    const [ra, rb, rc] = rows;
    expect(alertsById(db, [a.id, b.id, c.id])).toEqual(rows);
    expect(openAlerts(db)).toEqual([ra, rb]);
    expect(firingAlerts(db)).toEqual([ra, rb]);
    expect(resolvedAlertsById(db, [a.id, c.id])).toEqual([rc]);
    expect(openAlertOf(db, 'b')).toEqual(rb);
    expect(openAlertOf(db, 'c')).toBeUndefined();
    expect(firedEpisodesOf(db, 'a', T0)).toEqual([ra]);
    expect(ra?.absentSince).toBeNull();
    expect(openAlertsButDetails(db)).toEqual([ra, rb].map((row) => ({ ...row, details: DETAILS_NOT_READ })));
    // What recordFindings reads of the open ones: the labels as their stored text.
    expect(openAlertStates(db)).toEqual(
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
    for (const [key, since] of [
      ['a', T0],
      ['a', T0 + 1],
      ['b', T0],
      ['b', T0 + MIN],
      ['b', T0 + MIN + 1],
      ['c', 0],
    ] as const) {
      expect(firedCountSince(db, key, since), `${key} ${since}`).toBe(firedEpisodesOf(db, key, since).length);
    }
    expect(firedCountSince(db, 'b', T0 + MIN)).toBe(1);
    // Counted from the index alone: each fire counts its key's episodes in the flap window.
    const plan = db.sqlite
      .prepare('EXPLAIN QUERY PLAN SELECT count(*) FROM alerts WHERE key = ? AND fired_at >= ?')
      .all('a', T0) as { detail: string }[];
    expect(plan.map((step) => step.detail)).toEqual([
      'SEARCH alerts USING COVERING INDEX alerts_key_fired_at_idx (key=? AND fired_at>?)',
    ]);
    // Recipients back to none: SQL NULL, as drizzle writes it.
    refreshAlert(db, b.id, { ...input('b'), recipients: null, lastSeenAt: T0 + 3 * MIN });
    expect(drizzleRows(db)[1]?.recipients).toBeNull();
    expect(openAlerts(db)).toEqual(drizzleRows(db).slice(0, 2));
  });

  it('read a JSON column as it is now, whoever wrote it', () => {
    const db = databases.open();
    const a = insertAlert(db, input('a'));
    refreshAlert(db, a.id, { ...input('a'), details: { kind: 'idle', idleSince: T0 + MIN }, lastSeenAt: T0 + MIN });
    expect(openAlerts(db)[0]?.details).toEqual({ kind: 'idle', idleSince: T0 + MIN });
    // A write this file did not make, on another connection: read as it is now.
    const other = databases.open();
    other.sqlite.prepare(`UPDATE alerts SET details = '{"by":"cli"}', labels = '{"x":"y"}' WHERE id = ?`).run(a.id);
    expect(openAlerts(db)[0]).toMatchObject({ details: { by: 'cli' }, labels: { x: 'y' } });
  });

  it('leave the details out when asked, and read them in full again after', () => {
    const db = databases.open();
    insertAlert(db, input('a', { firedAt: T0 }));
    insertAlert(db, input('b', { firedAt: T0, details: { kind: 'budget' } }));
    const brief = firingAlertsButDetails(db);
    expect(brief.map((alert) => alert.details)).toEqual([DETAILS_NOT_READ, DETAILS_NOT_READ]);
    expect(brief.map(({ details: _, ...rest }) => rest)).toEqual(
      firingAlerts(db).map(({ details: _, ...rest }) => rest),
    );
    expect(firingAlerts(db)).toEqual(drizzleRows(db));
    expect(firingAlertsButDetails(db)[1]?.details).toBe(DETAILS_NOT_READ);
  });

  it('read what is committed after a rollback', () => {
    const db = databases.open();
    const a = insertAlert(db, input('a'));
    expect(() =>
      db.transaction(() => {
        refreshAlert(db, a.id, { ...input('a'), details: { rolled: 'back' }, lastSeenAt: T0 + MIN });
        insertAlert(db, input('b'));
        // Read inside the transaction: the uncommitted text.
        expect(openAlerts(db).map((alert) => alert.details)).toEqual([{ rolled: 'back' }, input('b').details]);
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(openAlerts(db)).toEqual(drizzleRows(db));
    expect(openAlerts(db)[0]?.details).toEqual(input('a').details);
    // The rolled-back row's id is taken by the next insert, with its own figures.
    const c = insertAlert(db, input('c', { details: { kind: 'budget' } }));
    expect(openAlerts(db).find((alert) => alert.id === c.id)?.details).toEqual({ kind: 'budget' });
  });

  it("read one key's open flap as the open flaps have it, and none once it settled", () => {
    const db = databases.open();
    openFlap(db, { key: 'a', rule: 'idle', account: 'main', since: T0, lastChangeAt: T0 });
    openFlap(db, { key: 'b', rule: 'idle', account: 'main', since: T0, lastChangeAt: T0 + MIN });
    expect(openFlapOf(db, 'b')).toEqual(openFlaps(db).get('b'));
    expect(openFlapOf(db, 'b')).toMatchObject({ key: 'b', lastChangeAt: T0 + MIN, settledAt: null });
    updateFlap(db, openFlapOf(db, 'a')?.id ?? -1, { settledAt: T0 + 2 * MIN });
    expect(openFlapOf(db, 'a')).toBeUndefined();
    expect(openFlapOf(db, 'c')).toBeUndefined();
  });
});
