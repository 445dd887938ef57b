import { describe, expect, it } from 'vitest';
import { newSilence } from '../../src/alerts/silence.js';
import { redeemLinkWrite, silenceOpenAlert } from '../../src/db/link-redemption.js';
import { listSilences } from '../../src/db/silences.js';
import { insertAlert, markAlertResolved } from '../helpers/store.js';
import { useTempDatabases } from './support.js';

const databases = useTempDatabases();
const T0 = Date.parse('2026-11-02T00:00:00Z');

const silence = (id: string) =>
  newSilence({
    id,
    matchers: [{ name: 'key', op: '=', value: 'budget:main:gpu' }],
    durationMs: 3_600_000,
    comment: 'test',
    createdBy: 'ana@example.com',
    now: T0,
  });

describe('a silence written for an alert', () => {
  it('is refused once the alert resolved between the check and the write', async () => {
    const db = databases.open();
    const alert = await insertAlert(db, {
      key: 'budget:main:gpu',
      rule: 'budget',
      account: 'main',
      severity: 'warning',
      summary: 'gpu budget',
      labels: { rule: 'budget', account: 'main', budget: 'gpu' },
      details: {},
      recipients: null,
      activeSince: T0,
      lastSeenAt: T0,
      firedAt: T0,
    });
    await markAlertResolved(db, alert.id, T0 + 1000);
    expect(await silenceOpenAlert(db, alert.key, silence('s-console'))).toBe(false);
    const used = { nonce: 'n-1', action: 'silence', account: 'main', subject: alert.key, recipient: 'ana', usedAt: T0 };
    expect(
      await redeemLinkWrite(db, used, { kind: 'silence', alertKey: alert.key, silence: silence('s-link') }),
    ).toEqual({
      status: 'changed',
    });
    expect(await listSilences(db)).toEqual([]);
  });
});
