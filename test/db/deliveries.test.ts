import { describe, expect, it } from 'vitest';
import { deliveriesOf, recordOutcomes } from '../../src/db/channel-outbox.js';
import { insertOutbox } from '../helpers/store.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;
const keys = ['idle:a:p1:warn', 'idle:a:p2:warn', 'idle:a:p3:warn', 'idle:a:p4:warn', 'idle:a:p5:warn'];

describe('the idle ladder reads warnings of many Pods at once', () => {
  it('finds for each key the message a read of that key alone finds, whatever its since', async () => {
    const db = databases.open();
    let n = 0;
    const message = async (alertKeys: string[], minute: number, to = ['ops@example.com']) =>
      (
        await insertOutbox(db, {
          messageId: `<m${++n}@podwarden>`,
          groupKey: 'g',
          account: 'a',
          reason: 'first',
          to,
          subject: 's',
          text: 't',
          html: 'h',
          alertKeys,
          createdAt: T0 + minute * MIN,
          nextAttemptAt: T0 + minute * MIN,
        })
      ).id;
    const sent = async (id: number, at: number) =>
      recordOutcomes(db, [{ kind: 'delivered', row: { id, state: null }, response: '250 ok' }], at);
    // p1: failed once, then sent later; p2: two sent, the later one accepted first; p3: listed
    // twice in one message, never sent; p4: only before the since asked; p5: nothing at all.
    const failed = await message([keys[0] as string], 1);
    await recordOutcomes(
      db,
      [{ kind: 'retry', id: failed, nextAttemptAt: T0 + 2 * MIN, error: 'connection refused' }],
      T0,
    );
    await sent(await message([keys[0] as string, keys[1] as string], 3), T0 + 9 * MIN);
    await sent(await message([keys[1] as string], 4), T0 + 5 * MIN);
    await message([keys[2] as string, keys[2] as string], 5, []);
    await sent(await message([keys[3] as string], 0), T0 + MIN);
    for (const sinceMinute of [0, 1, 2, 4, 6]) {
      const since = new Map(keys.map((key, i) => [key, T0 + (sinceMinute + (i === 3 ? 1 : 0)) * MIN]));
      const batched = await deliveriesOf(db, since, ['email']);
      for (const key of keys) {
        expect({ sinceMinute, key, delivery: batched.get(key) }).toEqual({
          sinceMinute,
          key,
          delivery: (await deliveriesOf(db, new Map([[key, since.get(key) as number]]), ['email'])).get(key),
        });
      }
    }
    // The figures themselves, from minute 0: p1 sent at 9, p2 at 5 (the earliest accepted), p3 not.
    const all = await deliveriesOf(db, new Map(keys.map((key) => [key, T0])), ['email']);
    expect(all.get(keys[0] as string)?.sentAt).toBe(T0 + 9 * MIN);
    expect(all.get(keys[1] as string)?.sentAt).toBe(T0 + 5 * MIN);
    expect(all.get(keys[2] as string)).toEqual({ sentAt: null, lastError: null, to: [] });
    expect(all.has(keys[4] as string)).toBe(false);
  });
});
