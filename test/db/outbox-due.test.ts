import { describe, expect, it } from 'vitest';
import {
  claimMessage,
  dueMessages,
  hasDueMessages,
  insertOutbox,
  markMessageFailed,
  markMessageSent,
} from '../../src/db/notifications.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');
const MIN = 60_000;

describe('whether a message is due, asked every tick', () => {
  it('answers as dueMessages does, through leases, retries and sends', () => {
    const db = databases.open();
    const agree = (now: number) => {
      expect({ now, due: hasDueMessages(db, now) }).toEqual({ now, due: dueMessages(db, now).length > 0 });
      return hasDueMessages(db, now);
    };
    expect(agree(T0)).toBe(false);
    const { id } = insertOutbox(db, {
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
    expect(agree(T0)).toBe(false);
    expect(agree(T0 + MIN)).toBe(true);
    expect(claimMessage(db, id, T0 + MIN, T0 + 5 * MIN)).toBe(true);
    expect(agree(T0 + 2 * MIN)).toBe(false);
    expect(agree(T0 + 5 * MIN)).toBe(true);
    markMessageFailed(db, id, T0 + 8 * MIN, 'refused');
    expect(agree(T0 + 7 * MIN)).toBe(false);
    expect(agree(T0 + 8 * MIN)).toBe(true);
    markMessageSent(db, id, T0 + 8 * MIN, '250 ok');
    expect(agree(T0 + 9 * MIN)).toBe(false);
  });
});
