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

async function snooze(database: Database, account: string, podId: string, until: number): Promise<void> {
  await snoozePod(database, { account, podId, until, createdAt: T0 });
}

describe('the active snoozes the idle rule reads every tick', () => {
  it('always equal a fresh read: writes here, by another connection, ended, per account', async () => {
    const database = databases.open();
    const other = databases.open();
    let now = T0;
    const check = async () => {
      for (const account of ['sim', 'second']) {
        expect(await activeSnoozes(database, account, now), `${account} at ${now}`).toEqual(truth(other, account, now));
      }
    };
    await check();
    await snooze(database, 'sim', 'pod-a', T0 + 2 * HOUR);
    await check();
    now += MINUTE;
    // The CLI snoozes through its own connection.
    await snooze(other, 'sim', 'pod-b', T0 + HOUR);
    await check();
    await snooze(other, 'second', 'pod-a', T0 + 3 * HOUR);
    await check();
    now += MINUTE;
    // Ended early (`until <= now`), then time passes pod-b's end, then pod-a's.
    await snooze(database, 'sim', 'pod-a', now);
    await check();
    for (now = T0 + 50 * MINUTE; now <= T0 + 4 * HOUR; now += 10 * MINUTE) await check();
    expect((await activeSnoozes(database, 'second', now)).size).toBe(0);
    // An earlier `now` (a page rendered at another time) reads for that time.
    now = T0 + 2 * MINUTE;
    await check();
  });
});
