import { describe, expect, it } from 'vitest';
import { notificationLogAt, putLogEntry } from '../../src/db/notifications.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;

describe('the notification log read every tick', () => {
  it('reads each live entry as written, each time from the database', () => {
    const db = databases.open();
    const entry = {
      receiver: ['ops@example.com'],
      firing: [1, 2],
      resolved: [],
      notifiedAt: T0,
      expiresAt: T0 + 10 * MIN,
    };
    putLogEntry(db, { groupKey: 'g1', ...entry });
    putLogEntry(db, { groupKey: 'g2', ...entry, expiresAt: null });
    const first = notificationLogAt(db, T0 + MIN);
    expect([...first.values()]).toEqual([
      { groupKey: 'g1', ...entry },
      { groupKey: 'g2', ...entry, expiresAt: null },
    ]);
    expect(notificationLogAt(db, T0 + 2 * MIN).get('g1')).toEqual(first.get('g1'));
    // Expired: absent; written again: read again.
    expect([...notificationLogAt(db, T0 + 11 * MIN).keys()]).toEqual(['g2']);
    const rewritten = {
      groupKey: 'g1',
      ...entry,
      firing: [2],
      resolved: [1],
      notifiedAt: T0 + 12 * MIN,
      expiresAt: null,
    };
    putLogEntry(db, rewritten);
    expect(notificationLogAt(db, T0 + 12 * MIN).get('g1')).toEqual(rewritten);
    // Another connection (the CLI) rewrites only the time: read as it is now.
    databases
      .open()
      .sqlite.prepare(`UPDATE notification_log SET notified_at = ? WHERE group_key = 'g2'`)
      .run(T0 - MIN);
    expect(notificationLogAt(db, T0 + 13 * MIN).get('g2')?.notifiedAt).toBe(T0 - MIN);
  });
});
