import { afterEach, describe, expect, it } from 'vitest';
import { type OutgoingEmail, SendError, smtpMailer } from '../../src/channels/email-smtp.js';
import type { EmailConfig } from '../../src/config/sections/email.js';
import { type SmtpPeer, selfSignedCert, startSmtp } from '../helpers/smtp.js';

const message: OutgoingEmail = {
  messageId: '<fixed-0001@example.com>',
  to: ['ops@example.com', 'cfo@example.com'],
  subject: '[podwarden] Budget gpu: live spend $412.30 crossed 80% of $500.00 (2026-11)',
  text: 'plain body',
  html: '<p>html body</p>',
  date: Date.UTC(2026, 10, 2, 10, 0, 0),
  headers: { 'X-Podwarden-Alert-Keys': 'budget:sim:gpu:live:80' },
};

function email(port: number, overrides: Partial<EmailConfig> = {}): EmailConfig {
  return {
    host: '127.0.0.1',
    port,
    secure: 'none',
    from: 'podwarden@example.com',
    to: ['ops@example.com'],
    giveUpAfterMs: 86_400_000,
    ...overrides,
  };
}

let peer: SmtpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

describe('smtpMailer', () => {
  it('sends plain SMTP with the stable Message-ID, the Date it was written and both bodies', async () => {
    peer = await startSmtp();
    const mailer = smtpMailer(email(peer.port));
    const response = await mailer.send(message);
    mailer.close();
    expect(response).toMatch(/^250/);
    const [mail] = await peer.waitFor(1);
    expect(mail?.to).toEqual(['ops@example.com', 'cfo@example.com']);
    expect(mail?.from).toBe('podwarden@example.com');
    expect(mail?.messageId).toBe('<fixed-0001@example.com>');
    expect(mail?.subject).toBe(message.subject);
    expect(mail?.alertKeys).toEqual(['budget:sim:gpu:live:80']);
    expect(mail?.raw).toMatch(/^Date: Mon, 02 Nov 2026 10:00:00 \+0000$/m);
    expect(mail?.raw).toContain('plain body');
    expect(mail?.raw).toContain('<p>html body</p>');
  });

  it('sends every message over one connection when kept open, and one connection per mailer otherwise', async () => {
    peer = await startSmtp();
    const kept = smtpMailer(email(peer.port), {}, { keepOpen: true });
    for (const n of [1, 2, 3]) {
      expect(await kept.send({ ...message, messageId: `<kept-000${n}@example.com>` })).toMatch(/^250/);
    }
    kept.close();
    await peer.waitFor(3);
    expect(peer.connections()).toBe(1);
    for (const n of [4, 5]) {
      const once = smtpMailer(email(peer.port));
      await once.send({ ...message, messageId: `<once-000${n}@example.com>` });
      once.close();
    }
    await peer.waitFor(5);
    expect(peer.connections()).toBe(3);
    expect(peer.received.map((mail) => mail.messageId)).toEqual([
      '<kept-0001@example.com>',
      '<kept-0002@example.com>',
      '<kept-0003@example.com>',
      '<once-0004@example.com>',
      '<once-0005@example.com>',
    ]);
  });

  it('upgrades with STARTTLS and logs in', async () => {
    const tls = selfSignedCert();
    peer = await startSmtp({ tls, auth: { user: 'alerts', pass: 'smtp-pass-0001' } });
    const mailer = smtpMailer(email(peer.port, { secure: 'starttls', user: 'alerts', password: 'smtp-pass-0001' }), {
      ca: tls.cert,
    });
    await mailer.send(message);
    mailer.close();
    expect((await peer.waitFor(1))[0]?.messageId).toBe(message.messageId);
  });

  it('speaks TLS from the first byte with secure: tls', async () => {
    const tls = selfSignedCert();
    peer = await startSmtp({ secure: true, tls });
    const mailer = smtpMailer(email(peer.port, { secure: 'tls' }), { ca: tls.cert });
    await mailer.send(message);
    mailer.close();
    expect((await peer.waitFor(1))[0]?.subject).toBe(message.subject);
  });

  it('refuses to send in the clear when STARTTLS is required but not offered', async () => {
    peer = await startSmtp();
    const mailer = smtpMailer(email(peer.port, { secure: 'starttls' }));
    await expect(mailer.send(message)).rejects.toBeInstanceOf(SendError);
    mailer.close();
    expect(peer.received).toEqual([]);
  });

  it('reports a wrong password as a SendError with the server reply code, without the password', async () => {
    peer = await startSmtp({ auth: { user: 'alerts', pass: 'right-pass-0001' } });
    const mailer = smtpMailer(email(peer.port, { user: 'alerts', password: 'wrong-pass-0001' }));
    const error = await mailer.send(message).catch((caught: unknown) => caught);
    mailer.close();
    expect(error).toBeInstanceOf(SendError);
    expect((error as SendError).responseCode).toBe(535);
    expect((error as SendError).message).toMatch(/^smtp 127\.0\.0\.1:\d+: EAUTH/);
  });

  it('reports a server that is not there as a SendError', async () => {
    const closed = await startSmtp();
    const port = closed.port;
    await closed.close();
    const mailer = smtpMailer(email(port));
    await expect(mailer.send(message)).rejects.toThrow(/ECONNECTION|ECONNREFUSED/);
    mailer.close();
  });
});
