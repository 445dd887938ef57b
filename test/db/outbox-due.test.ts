import { describe, expect, it } from 'vitest';
import { claimRow, dueRows, hasDueRows, recordOutcomes } from '../../src/db/channel-outbox.js';
import { insertOutbox } from '../helpers/store.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;

describe('whether a message is due, asked every tick', () => {
  it('answers as dueRows does (hasDueRows), through leases, retries and sends', async () => {
    const db = databases.open();
    const agree = async (now: number) => {
      const due = await hasDueRows(db, 'email', now);
      expect({ now, due }).toEqual({ now, due: (await dueRows(db, 'email', now)).length > 0 });
      return due;
    };
    expect(await agree(T0)).toBe(false);
    const { id } = await insertOutbox(db, {
      messageId: '<m1@podwarden>',
      groupKey: 'g',
      account: 'a',
      reason: 'first',
      to: ['ops@example.com'],
      subject: 's',
      text: 't',
      html: 'h',
      alertKeys: ['k'],
      createdAt: T0 + MIN,
      nextAttemptAt: T0 + MIN,
    });
    expect(await agree(T0)).toBe(false);
    expect(await agree(T0 + MIN)).toBe(true);
    expect(await claimRow(db, id, T0 + MIN, T0 + 5 * MIN)).toBe(true);
    expect(await agree(T0 + 2 * MIN)).toBe(false);
    expect(await agree(T0 + 5 * MIN)).toBe(true);
    await recordOutcomes(db, [{ kind: 'retry', id, nextAttemptAt: T0 + 8 * MIN, error: 'refused' }], T0 + 5 * MIN);
    expect(await agree(T0 + 7 * MIN)).toBe(false);
    expect(await agree(T0 + 8 * MIN)).toBe(true);
    await recordOutcomes(db, [{ kind: 'delivered', row: { id, state: null }, response: '250 ok' }], T0 + 8 * MIN);
    expect(await agree(T0 + 9 * MIN)).toBe(false);
  });
});
