import { afterEach, describe, expect, it } from 'vitest';
import { deliverDue } from '../../src/alerts/deliver.js';
import { alertmanagerDeliverer } from '../../src/channels/alertmanager.js';
import { emailDeliverer } from '../../src/channels/email.js';
import { smtpMailer } from '../../src/channels/email-smtp.js';
import { VirtualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { notificationLogAt, outboxMessagesBetween } from '../../src/db/notifications.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log.js';
import { BARE_COMMAND_LINE } from '../../src/messages/commands.js';
import type { EvaluationEvents } from '../../src/tick/context.js';
import { MINUTE, migrationsBefore, T0, useTempDatabases } from '../db/support.js';
import { type AlertReceiver, startAlertReceiver } from '../helpers/alert-receiver.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { insertAlert, rowsOf } from '../helpers/store.js';

const temp = useTempDatabases();
const FIRST = '0022_channel_outbox';
let smtp: SmtpPeer | undefined;
let receiver: AlertReceiver | undefined;
afterEach(async () => {
  await smtp?.close();
  await receiver?.close();
});

describe(`migration ${FIRST}`, () => {
  it('keeps every queued email and Alertmanager delivery of the old outboxes, and delivers them after the upgrade', async () => {
    smtp = await startSmtp();
    receiver = await startAlertReceiver(() => T0);
    const alertmanager = receiver;
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), FIRST) });
    const alert = await insertAlert(old, {
      key: 'budget:main:gpu:actual:80',
      rule: 'budget',
      account: 'main',
      severity: 'warning',
      summary: 'main spent 80 % of its budget',
      labels: { rule: 'budget', account: 'main', budget: 'gpu', figure: 'actual', threshold: '80' },
      details: {},
      recipients: null,
      activeSince: T0,
      lastSeenAt: T0,
      firedAt: T0,
    });
    const email = old.sqlite.prepare(
      `INSERT INTO outbox (message_id, group_key, account, reason, "to", subject, text, html, alert_keys, created_at,
         attempts, next_attempt_at, last_error, sent_at, smtp_response)
       VALUES (?, 'g', 'main', 'first', ?, ?, 'text', '<p>html</p>', ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Sent before the upgrade; queued after a failed attempt; queued, never tried.
    email.run('<sent@example.com>', '["ops@example.com"]', 'already sent', '["k0"]', T0, 1, T0, null, T0, '250 ok');
    email.run(
      '<retry@example.com>',
      '["ops@example.com"]',
      'waits for a retry',
      '["k1"]',
      T0,
      1,
      T0 + MINUTE,
      'ECONNREFUSED',
      null,
      null,
    );
    email.run(
      '<new@example.com>',
      '["a@example.com","b@example.com"]',
      'never tried',
      '["k2","k3"]',
      T0,
      0,
      T0,
      null,
      null,
      null,
    );
    old.sqlite
      .prepare(
        `INSERT INTO alertmanager_outbox (target, alert_id, state, created_at, attempts, next_attempt_at, last_error)
         VALUES (?, ?, 'firing', ?, 2, ?, 'HTTP 503')`,
      )
      .run(alertmanager.url, alert.id, T0, T0 + MINUTE);
    old.sqlite
      .prepare(
        `INSERT INTO notification_log (group_key, receiver, firing, resolved, notified_at, expires_at)
         VALUES ('g', '["ops@example.com"]', ?, '[]', ?, NULL)`,
      )
      .run(JSON.stringify([alert.id]), T0);
    old.close();

    const db = temp.open('upgrade.db');
    const messages = await outboxMessagesBetween(db, 0, Number.MAX_SAFE_INTEGER);
    expect(messages.map((m) => [m.messageId, m.subject, m.to, m.alertKeys, m.attempts, m.sentAt, m.lastError])).toEqual(
      [
        ['<sent@example.com>', 'already sent', ['ops@example.com'], ['k0'], 1, T0, null],
        ['<retry@example.com>', 'waits for a retry', ['ops@example.com'], ['k1'], 1, null, 'ECONNREFUSED'],
        ['<new@example.com>', 'never tried', ['a@example.com', 'b@example.com'], ['k2', 'k3'], 0, null, null],
      ],
    );
    expect(await rowsOf(db, ['alertmanager'])).toMatchObject([
      { target: alertmanager.url, alertId: alert.id, state: 'firing', attempts: 2, nextAttemptAt: T0 + MINUTE },
    ]);
    expect([...(await notificationLogAt(db, T0)).values()]).toEqual([
      {
        groupKey: 'g',
        receiver: ['ops@example.com'],
        firing: [alert.id],
        resolved: [],
        notifiedAt: T0,
        expiresAt: null,
      },
    ]);

    const config = defaultConfig([{ name: 'main', apiKey: 'main-key-0001' }]);
    config.email = {
      ...config.email,
      host: '127.0.0.1',
      port: smtp.port,
      secure: 'none',
      from: 'podwarden@example.com',
    };
    const clock = new VirtualClock(T0 + 2 * MINUTE);
    const ctx = {
      db,
      config,
      clock,
      log: silentLogger(),
      events: new EventBus<EvaluationEvents>(),
      signal: new AbortController().signal,
      commandLine: BARE_COMMAND_LINE,
    };
    const mailer = smtpMailer(config.email);
    try {
      await deliverDue(ctx, emailDeliverer(ctx, mailer));
    } finally {
      mailer.close();
    }
    expect(smtp.received.map((mail) => [mail.messageId, mail.subject, mail.to])).toEqual([
      ['<retry@example.com>', 'waits for a retry', ['ops@example.com']],
      ['<new@example.com>', 'never tried', ['a@example.com', 'b@example.com']],
    ]);
    const section = {
      urls: [alertmanager.url],
      timeoutMs: 5_000,
      resendIntervalMs: 5 * MINUTE,
      runbookUrls: {},
    } as unknown as NonNullable<typeof config.alerts.alertmanager>;
    await deliverDue(ctx, alertmanagerDeliverer(ctx, section));
    expect(alertmanager.posted.map((batch) => batch.alerts)).toMatchObject([
      [{ labels: { alertname: 'PodwardenBudget', account: 'main' } }],
    ]);
    expect((await outboxMessagesBetween(db, 0, Number.MAX_SAFE_INTEGER)).every((m) => m.sentAt !== null)).toBe(true);
  });
});
