import { describe, expect, it } from 'vitest';
import { activeSnoozes, snoozePod } from '../../src/db/idle-state.js';
import type { Database } from '../../src/db/open.js';
import { HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const databases = useTempDatabases();

/** What a fresh read says: the account's snoozes lasting beyond `now`. */
function truth(database: Database, account: string, now: number): Map<string, number> {
  const rows = database.sqlite
    .prepare('SELECT pod_id, until FROM pod_snoozes WHERE account = ? AND until > ?')
    .raw()
    .all(account, now) as Array<[string, number]>;
  return new Map(rows);
}

function snooze(database: Database, account: string, podId: string, until: number): void {
  snoozePod(database, { account, podId, until, createdAt: T0 });
}

describe('the active snoozes the idle rule reads every tick', () => {
  it('always equal a fresh read: writes here, by another connection, rolled back, ended, per account', () => {
    const database = databases.open();
    const other = databases.open();
    let now = T0;
    const check = () => {
      for (const account of ['sim', 'second']) {
        expect(activeSnoozes(database, account, now), `${account} at ${now}`).toEqual(truth(other, account, now));
      }
    };
    check();
    snooze(database, 'sim', 'pod-a', T0 + 2 * HOUR);
    check();
    now += MINUTE;
    // The CLI snoozes through its own connection.
    snooze(other, 'sim', 'pod-b', T0 + HOUR);
    check();
    snooze(other, 'second', 'pod-a', T0 + 3 * HOUR);
    check();
    now += MINUTE;
    // A snooze written in a transaction that rolls back was never there.
    expect(() =>
      database.transaction(() => {
        snooze(database, 'sim', 'pod-c', T0 + 5 * HOUR);
        expect(activeSnoozes(database, 'sim', now).has('pod-c')).toBe(true);
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
    check();
    expect(activeSnoozes(database, 'sim', now).has('pod-c')).toBe(false);
    // Ended early (`until <= now`), then time passes pod-b's end, then pod-a's.
    snooze(database, 'sim', 'pod-a', now);
    check();
    for (now = T0 + 50 * MINUTE; now <= T0 + 4 * HOUR; now += 10 * MINUTE) check();
    expect(activeSnoozes(database, 'second', now).size).toBe(0);
    // An earlier `now` (a page rendered at another time) reads for that time.
    now = T0 + 2 * MINUTE;
    check();
  });
});
