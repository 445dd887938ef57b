import { describe, expect, it } from 'vitest';
import { type LogRecord, notificationLogAt } from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';
import { planningState, writeNotifications } from '../../src/db/plan-inputs.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;

/** Writes a log entry as the pipeline does: with its group's message, in one planned write. */
async function putLogEntry(db: Database, log: LogRecord): Promise<void> {
  const row = {
    channel: 'email',
    account: 'a',
    reason: 'first',
    alertKeys: [],
    payload: {},
    createdAt: T0,
    nextAttemptAt: T0,
  };
  const { inputs } = await planningState(db);
  await writeNotifications(db, inputs, {
    messages: [{ row: { ...row, groupKey: log.groupKey }, log }],
    noticed: [],
    now: T0,
    forget: false,
  });
}

describe('the notification log read every tick', () => {
  it('reads each live entry as written, each time from the database', async () => {
    const db = databases.open();
    const entry = {
      receiver: ['ops@example.com'],
      firing: [1, 2],
      resolved: [],
      notifiedAt: T0,
      expiresAt: T0 + 10 * MIN,
    };
    await putLogEntry(db, { groupKey: 'g1', ...entry });
    await putLogEntry(db, { groupKey: 'g2', ...entry, expiresAt: null });
    const first = await notificationLogAt(db, T0 + MIN);
    expect([...first.values()]).toEqual([
      { groupKey: 'g1', ...entry },
      { groupKey: 'g2', ...entry, expiresAt: null },
    ]);
    expect((await notificationLogAt(db, T0 + 2 * MIN)).get('g1')).toEqual(first.get('g1'));
    // Expired: absent; written again: read again.
    expect([...(await notificationLogAt(db, T0 + 11 * MIN)).keys()]).toEqual(['g2']);
    const rewritten = {
      groupKey: 'g1',
      ...entry,
      firing: [2],
      resolved: [1],
      notifiedAt: T0 + 12 * MIN,
      expiresAt: null,
    };
    await putLogEntry(db, rewritten);
    expect((await notificationLogAt(db, T0 + 12 * MIN)).get('g1')).toEqual(rewritten);
    // Another connection (the CLI) rewrites only the time: read as it is now.
    databases
      .open()
      .sqlite.prepare(`UPDATE notification_log SET notified_at = ? WHERE group_key = 'g2'`)
      .run(T0 - MIN);
    expect((await notificationLogAt(db, T0 + 13 * MIN)).get('g2')?.notifiedAt).toBe(T0 - MIN);
  });
});
