import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestNotice } from '../../src/alerts/digest.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { muteSilenced } from '../../src/alerts/silence.js';
import { type AlertRecord } from '../../src/db/alerts.js';
import { openEpisodes } from '../../src/db/idle-state.js';
import { recordUsedLink } from '../../src/db/links.js';
import { applyRetention, retentionPolicy } from '../../src/db/retention.js';
import { podSnoozes, silences, usedLinks } from '../../src/db/schema.js';
import { heldDecisions } from '../../src/links/decisions.js';
import {
  checkLink,
  csrfFor,
  csrfMatches,
  describeRefusal,
  type LinkClaims,
  loadLinkSecret,
  redeemLink,
  signLink,
  silenceFromConsole,
  snoozeFromConsole,
} from '../../src/links/index.js';
import { renderDigest } from '../../src/messages/notices.js';
import { at, type IdleWorld, idleFrom, pod, scenario, startIdleWorld } from '../actions/idle-world.js';
import { insertAlert, markAlertResolved } from '../helpers/store.js';

const ANA = 'ana@example.com';
const HOUR = 3_600_000;
let world: IdleWorld;
let secret: Buffer;
let episode: number;

beforeEach(async () => {
  world = await startIdleWorld(scenario([pod('nb', idleFrom('10m')), pod('nb2', idleFrom('10m'))]), {
    dryRun: false,
  });
  await world.runUntil('45m');
  secret = await loadLinkSecret(world.h.db, world.h.config, world.h.clock);
  episode = (await openEpisodes(world.h.db, 'sim')).get('nb')?.startedAt as number;
});
afterEach(() => world.close());

function keepRunning(extra: Partial<LinkClaims> = {}): LinkClaims {
  return {
    action: 'keep-running',
    account: 'sim',
    subject: 'nb',
    until: at('45m') + 2 * HOUR,
    durationMs: 2 * HOUR,
    label: '2 h',
    recipient: ANA,
    expiresAt: at('45m') + 24 * HOUR,
    nonce: 'nonce-0001',
    timeZone: 'UTC',
    episode,
    ...extra,
  };
}
const NB = { action: 'keep-running', account: 'sim', subject: 'nb' } as const;

/** Every row a link can write: a refused link must leave all of them as they were. */
function state() {
  const { db } = world.h.db;
  return {
    snoozes: db.select().from(podSnoozes).all(),
    silences: db.select().from(silences).all(),
    used: db.select().from(usedLinks).all(),
  };
}

describe('a keep-running link', () => {
  it('previews without acting, then snoozes once, recorded as from an emailed link for its recipient', async () => {
    const token = signLink(secret, keepRunning());
    const before = state();
    const check = await checkLink(world.h.db, secret, token, NB, at('50m'));
    expect(check).toMatchObject({
      ok: true,
      preview: {
        question: 'Keep nb running until 02:50 UTC?',
        detail: [
          'It costs $0.27/h: $0.54 until then (2h).',
          'Its stop planned at 00:55 UTC is cancelled.',
          'After that, podwarden watches it again: a new warning comes before any stop.',
        ],
        button: 'Keep running until 02:50 UTC',
      },
    });
    expect(state()).toEqual(before);

    const done = await redeemLink(world.h.db, secret, token, NB, at('50m'));
    expect(done).toEqual({
      ok: true,
      done: 'nb keeps running until 02:50 UTC; podwarden will not warn about it or stop it before then.',
    });
    const after = state();
    expect(after.snoozes).toEqual([
      { account: 'sim', podId: 'nb', until: at('2h50m'), createdAt: at('50m'), source: 'email link', createdBy: ANA },
    ]);
    expect(after.used).toEqual([
      { nonce: 'nonce-0001', action: 'keep-running', account: 'sim', subject: 'nb', recipient: ANA, usedAt: at('50m') },
    ]);

    // The same link again: already used, and nothing changes.
    const again = await redeemLink(world.h.db, secret, token, NB, at('55m'));
    expect(again).toEqual({ ok: false, refusal: { reason: 'used', usedAt: at('50m'), recipient: ANA } });
    expect(state()).toEqual(after);
    if (!again.ok) {
      expect(describeRefusal(again.refusal, 'Europe/Berlin')).toBe(
        'This link was already used at Mon 2 Nov, 01:50 CET (sent to ana@example.com); nothing changed.',
      );
    }

    // Shown where people look: the held decisions (/api/status) and the next digest.
    expect(await heldDecisions(world.h.db, at('1h'))).toEqual([
      {
        kind: 'snooze',
        account: 'sim',
        subject: 'nb',
        name: 'nb',
        until: at('2h50m'),
        createdAt: at('50m'),
        source: 'email link',
        createdBy: ANA,
      },
    ]);
    const digest = await digestNotice(
      world.h.db,
      alertSettings(world.h.config),
      'sim',
      null,
      'UTC',
      at('1h'),
      heldDecisions,
    );
    expect(digest && renderDigest(digest).text).toContain(
      '  - nb kept running until Mon 2 Nov, 02:50 UTC, from an emailed link (ana@example.com)',
    );

    // The snoozed Pod is not stopped; the other idle Pod is.
    await world.runUntil('2h30m');
    const stopped = world.actionRequests().map((entry) => entry.path.split('/')[3]);
    expect(stopped).toContain('nb2');
    expect(stopped).not.toContain('nb');
  });

  it('acts once when the same link is redeemed twice at once (two POSTs racing): the other is refused as used', async () => {
    const token = signLink(secret, keepRunning());
    const [first, second] = await Promise.all([
      redeemLink(world.h.db, secret, token, NB, at('50m')),
      redeemLink(world.h.db, secret, token, NB, at('50m')),
    ]);
    expect([first, second]).toEqual([
      {
        ok: true,
        done: 'nb keeps running until 02:50 UTC; podwarden will not warn about it or stop it before then.',
      },
      { ok: false, refusal: { reason: 'used', usedAt: at('50m'), recipient: ANA } },
    ]);
    expect(state().snoozes).toHaveLength(1);
    expect(state().used).toHaveLength(1);
  });

  it('refuses forged, altered, cut, expired, other-subject and stale tokens with the reason, changing nothing', async () => {
    const good = signLink(secret, keepRunning());
    const [payload, signature] = good.split('.') as [string, string];
    const flip = (text: string, i: number) => text.slice(0, i) + (text[i] === 'A' ? 'B' : 'A') + text.slice(i + 1);
    const cases: Array<[string, string, number, unknown]> = [
      [
        'another secret',
        signLink(Buffer.from('another-secret-of-32-bytes-000000'), keepRunning()),
        at('50m'),
        { reason: 'forged' },
      ],
      ['one byte of the payload', `${flip(payload, 10)}.${signature}`, at('50m'), { reason: 'forged' }],
      ['one byte of the signature', `${payload}.${flip(signature, 5)}`, at('50m'), { reason: 'forged' }],
      ['cut short', good.slice(0, good.length - 4), at('50m'), { reason: 'malformed' }],
      ['not a token', 'hello', at('50m'), { reason: 'malformed' }],
      ['expired', good, at('45m') + 24 * HOUR, { reason: 'expired', expiresAt: at('45m') + 24 * HOUR }],
      [
        'for another Pod',
        signLink(secret, keepRunning({ subject: 'nb2' })),
        at('50m'),
        { reason: 'other-subject', subject: 'Pod nb2 (account sim)' },
      ],
      [
        'for an idle spell that is over',
        signLink(secret, keepRunning({ episode: episode - 60_000 })),
        at('50m'),
        { reason: 'gone', detail: 'the idle spell of nb this email was about is over' },
      ],
    ];
    const before = state();
    for (const [what, token, now, refusal] of cases) {
      expect({ what, check: await checkLink(world.h.db, secret, token, NB, now) }).toEqual({
        what,
        check: { ok: false, refusal },
      });
      expect({ what, redeem: await redeemLink(world.h.db, secret, token, NB, now) }).toEqual({
        what,
        redeem: { ok: false, refusal },
      });
    }
    expect(state()).toEqual(before);
    expect(describeRefusal({ reason: 'forged' }, 'UTC')).toBe(
      'This link was not made by this podwarden, or was altered; nothing changed.',
    );
    expect(describeRefusal({ reason: 'expired', expiresAt: at('45m') }, 'UTC')).toBe(
      'This link expired at Mon 2 Nov, 00:45 UTC; nothing changed.',
    );
  });

  it('names the day of an end that is not today', async () => {
    const tomorrow9 = at('33h');
    const token = signLink(
      secret,
      keepRunning({ durationMs: null, until: tomorrow9, label: 'until tomorrow 09:00 UTC', expiresAt: tomorrow9 }),
    );
    expect(await checkLink(world.h.db, secret, token, NB, at('50m'))).toMatchObject({
      ok: true,
      preview: { question: 'Keep nb running until Tue 3 Nov, 09:00 UTC?' },
    });
  });

  it('never shortens a longer snooze made meanwhile, and is used up all the same', async () => {
    const eight = await redeemLink(
      world.h.db,
      secret,
      signLink(secret, keepRunning({ nonce: 'n8', durationMs: 8 * HOUR })),
      NB,
      at('50m'),
    );
    expect(eight.ok).toBe(true);
    const two = await redeemLink(world.h.db, secret, signLink(secret, keepRunning({ nonce: 'n2' })), NB, at('51m'));
    expect(two).toEqual({
      ok: true,
      done: 'nb was already kept running until 08:50 UTC, later than this link offers; nothing changed.',
    });
    expect(state().snoozes.map((row) => row.until)).toEqual([at('8h50m')]);
    expect(
      state()
        .used.map((row) => row.nonce)
        .sort(),
    ).toEqual(['n2', 'n8']);
  });

  it("stops working once the warning's idle spell ended, and says how it ended", async () => {
    const two = signLink(secret, keepRunning({ nonce: 'n2' }));
    const eight = signLink(secret, keepRunning({ nonce: 'n8', durationMs: 8 * HOUR }));
    expect((await redeemLink(world.h.db, secret, two, NB, at('50m'))).ok).toBe(true);
    // The next evaluation ends the spell: the Pod is snoozed.
    await world.runUntil('52m');
    expect(await checkLink(world.h.db, secret, eight, NB, at('52m'))).toEqual({
      ok: false,
      refusal: {
        reason: 'gone',
        detail: 'the idle spell of nb this email was about is over (it was kept running meanwhile)',
      },
    });
  });
});

describe('a silence link', () => {
  let alert: AlertRecord;
  beforeEach(async () => {
    alert = await insertAlert(world.h.db, {
      key: 'idle/sim/nb',
      rule: 'idle',
      account: 'sim',
      severity: 'warning',
      summary: 'Pod nb idle',
      labels: { rule: 'idle', account: 'sim', pod_id: 'nb', stage: 'warn' },
      details: {},
      recipients: null,
      activeSince: at('40m'),
      lastSeenAt: at('45m'),
      firedAt: at('40m'),
    });
  });
  const silenceClaims = (extra: Partial<LinkClaims> = {}): LinkClaims => ({
    ...keepRunning(),
    action: 'silence',
    subject: 'idle/sim/nb',
    until: at('45m') + 4 * HOUR,
    durationMs: 4 * HOUR,
    label: '4 h',
    episode: null,
    ...extra,
  });
  const target = { action: 'silence', account: 'sim', subject: 'idle/sim/nb' } as const;

  it('silences the alert by its identity, recorded as from an emailed link', async () => {
    const token = signLink(secret, silenceClaims());
    expect(await checkLink(world.h.db, secret, token, target, at('1h'))).toMatchObject({
      ok: true,
      preview: { question: 'Silence "Pod nb idle" until 05:00 UTC?', button: 'Silence until 05:00 UTC' },
    });
    expect(await redeemLink(world.h.db, secret, token, target, at('1h'))).toEqual({
      ok: true,
      done: '"Pod nb idle" is silenced until 05:00 UTC.',
    });
    const [silence] = state().silences;
    expect(silence).toMatchObject({
      matchers: [
        { name: 'rule', op: '=', value: 'idle' },
        { name: 'account', op: '=', value: 'sim' },
        { name: 'pod_id', op: '=', value: 'nb' },
      ],
      createdBy: ANA,
      source: 'email link',
      comment: 'silenced from an emailed link for ana@example.com (4 h)',
      startsAt: at('1h'),
      endsAt: at('5h'),
    });
    const notify = { ...alert, id: alert.id, key: alert.key, labels: alert.labels } as never;
    expect(muteSilenced([notify], state().silences, at('2h'))).toEqual([]);
    // A keep-running URL with a silence token names another thing: refused.
    expect(await checkLink(world.h.db, secret, token, { ...target, action: 'keep-running' }, at('1h'))).toMatchObject({
      ok: false,
      refusal: { reason: 'other-subject' },
    });
  });

  it('is gone once the alert resolved', async () => {
    await markAlertResolved(world.h.db, alert.id, at('50m'));
    const token = signLink(secret, silenceClaims());
    const before = state();
    expect(await redeemLink(world.h.db, secret, token, target, at('1h'))).toEqual({
      ok: false,
      refusal: { reason: 'gone', detail: 'the alert idle/sim/nb is resolved' },
    });
    expect(state()).toEqual(before);
  });
});

describe("the status page's own forms", () => {
  it('snooze and silence with source status page, shown among the held decisions', async () => {
    await snoozeFromConsole(world.h.db, { account: 'sim', podId: 'nb', until: at('3h'), by: 'session' }, at('1h'));
    expect(
      await silenceFromConsole(world.h.db, { alertKey: 'no-such-alert', until: at('3h'), by: 'session' }, at('1h')),
    ).toBe(undefined);
    await insertAlert(world.h.db, {
      key: 'idle/sim/nb2',
      rule: 'idle',
      account: 'sim',
      severity: 'info',
      summary: 'Pod nb2 idle',
      labels: { rule: 'idle', account: 'sim', pod_id: 'nb2' },
      details: {},
      recipients: null,
      activeSince: at('40m'),
      lastSeenAt: at('45m'),
      firedAt: at('40m'),
    });
    expect(
      await silenceFromConsole(world.h.db, { alertKey: 'idle/sim/nb2', until: at('5h'), by: 'session' }, at('1h')),
    ).toMatchObject({
      source: 'status page',
      endsAt: at('5h'),
    });
    expect((await heldDecisions(world.h.db, at('2h'))).map((held) => [held.kind, held.subject, held.source])).toEqual([
      ['snooze', 'nb', 'status page'],
      ['silence', 'rule=idle account=sim pod_id=nb2', 'status page'],
    ]);
  });
});

describe('csrf values', () => {
  it('match only their purpose and binding under the same secret', async () => {
    const value = csrfFor(secret, 'link', 'token-1');
    expect(csrfMatches(secret, 'link', 'token-1', value)).toBe(true);
    expect(csrfMatches(secret, 'link', 'token-2', value)).toBe(false);
    expect(csrfMatches(secret, 'form', 'token-1', value)).toBe(false);
    expect(csrfMatches(Buffer.from('other'), 'link', 'token-1', value)).toBe(false);
    expect(csrfMatches(secret, 'link', 'token-1', '')).toBe(false);
  });
});

describe('the daily retention pass', () => {
  it('keeps the nonce of a link still within its life, so it stays refused as used, and drops old ones', async () => {
    const token = signLink(secret, keepRunning());
    expect((await redeemLink(world.h.db, secret, token, NB, at('50m'))).ok).toBe(true);
    const linkExpiryMs = world.h.config.http.linkExpiryMs;
    const old = { action: 'keep-running', account: 'sim', subject: 'nb2', recipient: ANA };
    await recordUsedLink(world.h.db, { ...old, nonce: 'nonce-old', usedAt: at('50m') - 2 * linkExpiryMs - HOUR });

    // Just before the link expires, the longest a still-valid link's nonce can be needed.
    const late = at('45m') + linkExpiryMs - 1;
    expect((await applyRetention(world.h.db, retentionPolicy(world.h.config), late)).usedLinksDeleted).toBe(1);

    expect(state().used.map((row) => row.nonce)).toEqual(['nonce-0001']);
    expect(await checkLink(world.h.db, secret, token, NB, late)).toEqual({
      ok: false,
      refusal: { reason: 'used', usedAt: at('50m'), recipient: ANA },
    });
  });
});
