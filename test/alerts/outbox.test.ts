import { afterEach, describe, expect, it } from 'vitest';
import { notify } from '../../src/alerts/notify.js';
import { LEASE_MS, retryDelay } from '../../src/alerts/retry.js';
import { alertSettings } from '../../src/alerts/settings.js';
import { recordFindings } from '../../src/alerts/state.js';
import { emailRenderer } from '../../src/channels/email.js';
import { smtpMailer } from '../../src/channels/email-smtp.js';
import { claimRow } from '../../src/db/channel-outbox.js';
import { outboxCountsByAccount, toEmailRecord } from '../../src/db/notifications.js';
import { outboxCounts } from '../helpers/email-outbox.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { type AlertBench, alertBench, budgetFinding, finding, HOUR, MINUTE, START } from './support.js';

let bench: AlertBench;
let peer: SmtpPeer | undefined;
afterEach(async () => {
  bench.close();
  await peer?.close();
  peer = undefined;
});

/** A port where nothing listens now, and where a server can be started later. */
async function vacantPort(): Promise<number> {
  const probe = await startSmtp();
  await probe.close();
  return probe.port;
}

function withEmail(port: number) {
  return alertBench((config) => {
    config.email = {
      ...config.email,
      host: '127.0.0.1',
      port,
      secure: 'none',
      from: 'podwarden@example.com',
      to: ['ops@example.com'],
    };
  });
}

describe('the outbox', () => {
  it('loses nothing while SMTP is down for two hours, then delivers everything once', async () => {
    const port = await vacantPort();
    bench = withEmail(port);
    // A new budget crosses a threshold every 20 minutes: six groups, six messages, all queued while down.
    const findingsAt = (now: number) =>
      Array.from({ length: Math.min(6, Math.floor((now - START) / (20 * MINUTE)) + 1) }, (_, i) =>
        budgetFinding(`team-${i}`, 'actual', 50),
      );
    await bench.run(2 * HOUR, findingsAt);
    expect(bench.sent).toEqual([]);
    const queued = await bench.outbox();
    expect(queued).toHaveLength(6);
    expect(queued.every((message) => message.sentAt === null && message.attempts >= 1)).toBe(true);
    expect(queued[0]?.lastError).toMatch(/ECONNECTION|ECONNREFUSED/);
    expect(queued[0]?.attempts).toBeGreaterThan(3);

    peer = await startSmtp({ port });
    await bench.run(HOUR, findingsAt);
    const received = await peer.waitFor(6);
    expect(received.map((mail) => mail.messageId).sort()).toEqual(queued.map((message) => message.messageId).sort());
    expect(new Set(received.map((mail) => mail.subject)).size).toBe(6);
    expect(await outboxCounts(bench.db)).toMatchObject({ pending: 0, sent: 6, abandoned: 0, oldestPendingAt: null });
    // Retries followed the backoff on the virtual clock: every message got out within the longest delay.
    for (const message of await bench.outbox()) {
      expect((message.sentAt ?? 0) - (START + 2 * HOUR)).toBeLessThanOrEqual(retryDelay(100) + MINUTE);
    }
    await bench.run(2 * HOUR, findingsAt);
    expect(peer.received).toHaveLength(6);
    expect(bench.sent.map((event) => event.messageId).sort()).toEqual(queued.map((m) => m.messageId).sort());
  });

  it('sends a message written just before a crash once, after the restart', async () => {
    peer = await startSmtp();
    bench = withEmail(peer.port);
    const settings = alertSettings(bench.config);
    const findings = [finding('waste:sim:volume-unmounted:vol-1')];
    // The tick gets as far as writing the outbox (state, then the queue), then the daemon dies.
    await recordFindings(bench.db, findings, bench.clock.now(), settings);
    await bench.clock.advanceBy(MINUTE);
    await recordFindings(bench.db, findings, bench.clock.now(), settings);
    const [written] = (await notify(bench.db, settings, bench.clock.now(), [emailRenderer('example.com')])).map(
      toEmailRecord,
    );
    expect(written?.sentAt).toBeNull();
    bench.reopen();
    await bench.run(30 * MINUTE, () => findings);
    const [mail] = await peer.waitFor(1);
    expect(mail?.messageId).toBe(written?.messageId);
    expect(peer.received).toHaveLength(1);
    expect(await bench.outbox()).toHaveLength(1);
  });

  it('resends an attempt left in doubt by a crash once its lease runs out, with the same Message-ID', async () => {
    peer = await startSmtp();
    bench = withEmail(peer.port);
    const settings = alertSettings(bench.config);
    const findings = [budgetFinding('gpu', 'actual', 80)];
    await recordFindings(bench.db, findings, bench.clock.now(), settings);
    await bench.clock.advanceBy(MINUTE);
    const [written] = (await notify(bench.db, settings, bench.clock.now(), [emailRenderer('example.com')])).map(
      toEmailRecord,
    );
    if (!written) throw new Error('nothing queued');
    // The crash window: the attempt is leased and the server accepts the message, but "sent" is never recorded.
    expect(await claimRow(bench.db, written.id, bench.clock.now(), bench.clock.now() + LEASE_MS)).toBe(true);
    const mailer = smtpMailer(bench.config.email);
    await mailer.send({ ...written, date: written.createdAt, headers: {} });
    mailer.close();
    bench.reopen();
    // While the lease holds, nobody sends it again.
    await bench.run(LEASE_MS - MINUTE, () => findings);
    expect(peer.received).toHaveLength(1);
    await bench.run(5 * MINUTE, () => findings);
    const copies = await peer.waitFor(2);
    expect(copies.map((mail) => mail.messageId)).toEqual([written.messageId, written.messageId]);
    expect(copies[0]?.raw.match(/^Date: .*$/m)?.[0]).toBe(copies[1]?.raw.match(/^Date: .*$/m)?.[0]);
    await bench.run(HOUR, () => findings);
    expect(peer.received).toHaveLength(2);
    expect((await bench.outbox())[0]?.sentAt).not.toBeNull();
  });

  it('abandons a message SMTP never took within giveUpAfter, instead of sending it late', async () => {
    const port = await vacantPort();
    bench = withEmail(port);
    bench.config.email.giveUpAfterMs = HOUR;
    await bench.run(90 * MINUTE, () => [finding('waste:sim:stuck-starting:pod-1')]);
    expect(await outboxCounts(bench.db)).toMatchObject({ pending: 0, sent: 0, abandoned: 1 });
    peer = await startSmtp({ port });
    await bench.run(HOUR, () => [finding('waste:sim:stuck-starting:pod-1')]);
    expect(peer.received).toEqual([]);
  });

  it('keeps notifications in the outbox, unsent, without an email host', async () => {
    bench = alertBench();
    await bench.run(10 * MINUTE, () => [budgetFinding('gpu', 'forecast', 100)]);
    expect((await bench.outbox()).map((m) => [m.subject, m.to, m.sentAt])).toEqual([
      ['[sim] Budget gpu: forecast crossed 100%', [], null],
    ]);
    expect(bench.sent).toEqual([]);
  });
});

describe('the account of a message', () => {
  it('is the account its alerts concern, or all when grouping put several accounts in one message', async () => {
    const port = await vacantPort();
    bench = withEmail(port);
    bench.config.alerts.groupBy = ['rule'];
    const other = (key: string) => finding(key, { account: 'other', labels: { rule: 'idle', account: 'other' } });
    await bench.run(HOUR, () => [finding('capacity:h100'), finding('idle:p1'), other('idle:p2')]);
    const byRule = new Map((await bench.outbox()).map((message) => [message.groupKey, message.account]));
    expect([...byRule.entries()].sort()).toEqual([
      ['{rule="capacity"}:ops@example.com', 'sim'],
      ['{rule="idle"}:ops@example.com', 'all'],
    ]);
    expect((await outboxCountsByAccount(bench.db)).map((row) => [row.account, row.pending])).toEqual([
      ['all', 1],
      ['sim', 1],
    ]);
  });
});
