import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverDue } from '../../src/alerts/deliver.js';
import { notify } from '../../src/alerts/notify.js';
import { retryDelay } from '../../src/alerts/retry.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { slackDeliverer, slackRenderer } from '../../src/channels/slack.js';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { SlackConfig } from '../../src/config/sections/slack.js';
import type { Database } from '../../src/db/open.js';
import { channelOutbox } from '../../src/db/schema.js';
import { createLogger } from '../../src/log.js';
import { MINUTE, T0, useTempDatabases } from '../db/support.js';
import { type SlackAnswer, type SlackReceiver, startSlackReceiver } from '../helpers/slack-receiver.js';
import { insertAlert } from '../helpers/store.js';

/**
 * The Slack channel against a loopback peer that answers as Slack's incoming webhooks do: from
 * the alert to the outbox rows (one per destination) to the POSTs, and what each of Slack's
 * answers does to a row: delivered, retried after `Retry-After`, retried with backoff, or failed
 * for good with Slack's reason. The webhook URL (a secret) never reaches a log line or a row.
 */
const temp = useTempDatabases();
let receiver: SlackReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const SECRET_PATH = '/services/T0PODWARDEN/B0SECRET/abcdefghijklmnopqrstuvwx';

/** `destinations`: what the route of the alert names on Slack; null: no route (the default destination). */
async function setUp(destinations: string[] | null = null) {
  receiver = await startSlackReceiver();
  const clock = new VirtualClock(T0);
  const config = parseConfig(
    {
      accounts: [{ name: 'main', apiKey: 'main-key-0001' }],
      ...(destinations && { alerts: { routes: [{ match: { rule: 'idle' }, to: { slack: destinations } }] } }),
      slack: {
        destinations: [
          { name: 'ml-team', webhookUrl: `${receiver.url}${SECRET_PATH}/ml` },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation
          { name: 'finance', webhookUrl: '${SLACK_FINANCE}' },
        ],
      },
    },
    { env: { SLACK_FINANCE: `${receiver.url}${SECRET_PATH}/finance` }, baseDir: '/' },
  );
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger({ level: 'debug', pretty: false, destination });
  const db = temp.open();
  await insertAlert(db, {
    key: 'idle:main:nb:warn',
    rule: 'idle',
    account: 'main',
    severity: 'warning',
    summary: 'Pod nb idle for 30m: it will be stopped',
    labels: { rule: 'idle', account: 'main', pod_id: 'nb', stage: 'warn' },
    details: {},
    recipients: null,
    activeSince: T0,
    lastSeenAt: T0,
    firedAt: T0,
  });
  const section = config.slack as SlackConfig;
  const ctx = { clock, log, signal: new AbortController().signal };
  const deliverer = slackDeliverer(ctx, section);
  const queue = async () =>
    notify(db, alertSettings(config), clock.now(), [slackRenderer(section, { publicUrl: 'https://pw.example.com' })]);
  return { clock, db, lines, queue, deliver: () => deliverDue({ db, clock }, deliverer) };
}

const rows = (db: Database) => db.db.select().from(channelOutbox).where(eq(channelOutbox.channel, 'slack')).all();

describe('the Slack channel against a loopback Slack', () => {
  it('posts the message to the default destination when no recipient names one, and records Slack\'s "ok"', async () => {
    const { clock, db, queue, deliver, lines } = await setUp();
    await clock.advanceTo(T0 + MINUTE);
    expect(await queue()).toHaveLength(1);
    await deliver();
    const [post] = receiver?.posts ?? [];
    expect(post).toMatchObject({ path: `${SECRET_PATH}/ml`, contentType: 'application/json', status: 200 });
    expect(post?.body.text).toMatch(/^Pod nb idle for 30m/);
    expect(rows(db)).toMatchObject([
      { target: 'ml-team', deliveredAt: T0 + MINUTE, response: 'ok', attempts: 1, finishedAt: T0 + MINUTE },
    ]);
    const log = lines.join('');
    expect(log).toContain('Slack message delivered');
    expect(log).not.toContain(SECRET_PATH);
    expect(log).not.toContain('B0SECRET');
    expect(JSON.stringify(rows(db))).not.toContain('B0SECRET');
  });

  it('posts one row to each destination the recipients name, each on its own', async () => {
    const { clock, db, queue, deliver } = await setUp(['finance', 'ml-team']);
    await clock.advanceTo(T0 + MINUTE);
    receiver?.answer({ status: 404, body: 'no_service' });
    await queue();
    await deliver();
    const byTarget = Object.fromEntries(rows(db).map((row) => [row.target, row]));
    expect(Object.keys(byTarget).sort()).toEqual(['finance', 'ml-team']);
    expect(receiver?.posts.map((post) => post.path).sort()).toEqual([`${SECRET_PATH}/finance`, `${SECRET_PATH}/ml`]);
    // One destination refused, the other took it: each row has its own outcome.
    const outcomes = Object.values(byTarget).map((row) => row.response ?? row.lastError);
    expect(outcomes.sort()).toEqual(['Slack refused the message: HTTP 404 no_service', 'ok']);
    // Both POSTs carry the same message.
    expect(receiver?.posts[0]?.body).toEqual(receiver?.posts[1]?.body);
  });

  it('429: waits the Retry-After Slack asks for, then delivers; the attempt before it is not made', async () => {
    const { clock, db, queue, deliver, lines } = await setUp();
    await clock.advanceTo(T0 + MINUTE);
    receiver?.answer({ status: 429, retryAfter: 7 });
    await queue();
    await deliver();
    expect(rows(db)).toMatchObject([
      { nextAttemptAt: T0 + MINUTE + 7_000, finishedAt: null, lastError: expect.stringContaining('rate limit') },
    ]);
    await clock.advanceTo(T0 + MINUTE + 6_999);
    await deliver();
    expect(receiver?.posts).toHaveLength(1);
    await clock.advanceTo(T0 + MINUTE + 7_000);
    await deliver();
    expect(receiver?.posts.map((post) => post.status)).toEqual([429, 200]);
    expect(rows(db)).toMatchObject([{ deliveredAt: T0 + MINUTE + 7_000, attempts: 2 }]);
    expect(lines.join('')).toContain('will retry');
  });

  it('5xx and a peer that is gone: retried with the shared backoff', async () => {
    const { clock, db, queue, deliver } = await setUp();
    await clock.advanceTo(T0 + MINUTE);
    receiver?.answer({ status: 503, body: 'service unavailable' });
    await queue();
    await deliver();
    expect(rows(db)).toMatchObject([
      { nextAttemptAt: T0 + MINUTE + retryDelay(1), lastError: 'Slack failed: HTTP 503 service unavailable' },
    ]);
    await receiver?.close();
    receiver = undefined;
    await clock.advanceTo(T0 + MINUTE + retryDelay(1));
    await deliver();
    const [row] = rows(db);
    expect(row?.lastError).toMatch(/^Slack unreachable: ECONNREFUSED/);
    expect(row?.nextAttemptAt).toBe(T0 + MINUTE + retryDelay(1) + retryDelay(2));
    expect(row?.lastError).not.toContain('B0SECRET');
  });

  const refusals: Array<[SlackAnswer, string]> = [
    [{ status: 404, body: 'no_service' }, 'HTTP 404 no_service'],
    [{ status: 403, body: 'invalid_token' }, 'HTTP 403 invalid_token'],
    [{ status: 400, body: 'invalid_payload' }, 'HTTP 400 invalid_payload'],
    [{ status: 410, body: 'channel_is_archived' }, 'HTTP 410 channel_is_archived'],
    [{ status: 403, body: 'action_prohibited' }, 'HTTP 403 action_prohibited'],
  ];
  for (const [answer, said] of refusals) {
    it(`${said}: failed for good, with Slack's reason logged, never attempted again`, async () => {
      const { clock, db, queue, deliver, lines } = await setUp();
      await clock.advanceTo(T0 + MINUTE);
      receiver?.answer(answer);
      await queue();
      await deliver();
      await clock.advanceTo(T0 + 60 * MINUTE);
      await deliver();
      expect(receiver?.posts).toHaveLength(1);
      expect(rows(db)).toMatchObject([
        { finishedAt: T0 + MINUTE, deliveredAt: null, lastError: `Slack refused the message: ${said}` },
      ]);
      const abandoned = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'Slack message abandoned');
      expect(abandoned).toMatchObject({ level: 50, destination: 'ml-team', err: `Slack refused the message: ${said}` });
    });
  }

  it('a row whose destination was removed from the configuration is abandoned, not posted elsewhere', async () => {
    const { clock, db, queue } = await setUp(['finance']);
    await clock.advanceTo(T0 + MINUTE);
    await queue();
    const section: SlackConfig = {
      destinations: [{ name: 'ml-team', webhookUrl: `${receiver?.url}${SECRET_PATH}/ml` }],
      timeoutMs: 5_000,
      giveUpAfterMs: 86_400_000,
    };
    const ctx = { clock, log: createLogger({ level: 'silent' }), signal: new AbortController().signal };
    await deliverDue({ db, clock }, { ...slackDeliverer(ctx, section), targets: ['ml-team', 'finance'] });
    expect(receiver?.posts).toHaveLength(0);
    expect(rows(db)).toMatchObject([{ target: 'finance', lastError: expect.stringContaining('no Slack destination') }]);
  });
});
