import { describe, expect, it } from 'vitest';
import {
  allDeliveries,
  claimDelivery,
  ensureFiring,
  finishDelivery,
  markDelivered,
  markResolving,
} from '../../src/db/alertmanager-outbox.js';
import { type AlertInput, insertAlert, markAlertResolved } from '../../src/db/alerts.js';
import {
  claimRow,
  queueRow,
  recordAbandoned,
  recordClosed,
  recordDelivered,
  rowsOf,
} from '../../src/db/channel-outbox.js';
import { lastDigestAt } from '../../src/db/digest.js';
import {
  abandonMessage,
  claimMessage,
  insertOutbox,
  markMessageFailed,
  markMessageSent,
  outboxCounts,
  outboxCountsByAccount,
  outboxMessagesBetween,
} from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';
import { applyRetention } from '../../src/db/retention.js';
import { DAY, HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const policy = { rawSamplesMs: HOUR, fiveMinuteRollupsMs: DAY, rollupsMs: DAY, usedLinksMs: DAY, outboxMs: DAY };
const NOW = T0 + 3 * DAY;
const AM = 'http://alertmanager:9093';

function message(
  database: Database,
  name: string,
  createdAt: number,
  extra: { groupKey?: string; keys?: string[] } = {},
) {
  return insertOutbox(database, {
    messageId: `<${name}@podwarden>`,
    groupKey: extra.groupKey ?? `group:${name}`,
    account: name.startsWith('other') ? 'other' : 'main',
    reason: 'firing',
    to: ['ana@example.com'],
    subject: name,
    text: name,
    html: name,
    alertKeys: extra.keys ?? [],
    createdAt,
    nextAttemptAt: createdAt,
  }).id;
}

function sent(database: Database, name: string, at: number, extra: { groupKey?: string; keys?: string[] } = {}) {
  const id = message(database, name, at - MINUTE, extra);
  expect(claimMessage(database, id, at - MINUTE, at)).toBe(true);
  markMessageSent(database, id, at, '250 ok');
  return id;
}

function alert(database: Database, key: string, resolvedAt: number | null): number {
  const input: AlertInput = {
    key,
    rule: 'idle',
    account: 'main',
    severity: 'warning',
    summary: key,
    labels: {},
    details: {},
    recipients: null,
    activeSince: T0,
    lastSeenAt: T0,
    firedAt: T0,
  };
  const { id } = insertAlert(database, input);
  if (resolvedAt !== null) markAlertResolved(database, id, resolvedAt);
  return id;
}

function subjects(database: Database): string[] {
  return outboxMessagesBetween(database, 0, Number.MAX_SAFE_INTEGER).map((row) => row.subject);
}

describe('applyRetention on the email outbox', () => {
  it('deletes old finished messages, keeps due, leased, recent and still needed ones, and the counts stay', async () => {
    const database = temp.open();
    sent(database, 'old-sent', T0);
    sent(database, 'other-old-sent', T0);
    abandonMessage(database, message(database, 'old-abandoned', T0), T0 + HOUR, 'gave up');
    sent(database, 'recent-sent', NOW - HOUR);
    message(database, 'due', T0);
    const failing = message(database, 'failing', T0);
    expect(claimMessage(database, failing, T0, T0 + MINUTE)).toBe(true);
    markMessageFailed(database, failing, NOW + HOUR, 'connection refused');
    const leased = message(database, 'leased', T0);
    expect(claimMessage(database, leased, NOW - MINUTE, NOW + MINUTE)).toBe(true);
    sent(database, 'old-digest', T0 - DAY, { groupKey: 'digest:main' });
    sent(database, 'latest-digest', T0, { groupKey: 'digest:main' });
    alert(database, 'idle:main:nb:warn', null);
    alert(database, 'idle:main:gone:warn', T0 + HOUR);
    sent(database, 'open-alert', T0, { keys: ['idle:main:nb:warn'] });
    sent(database, 'resolved-alert', T0, { keys: ['idle:main:gone:warn'] });
    const counts = outboxCountsByAccount(database);
    const total = outboxCounts(database);

    expect((await applyRetention(database, policy, NOW)).emailsDeleted).toBe(5);
    expect(subjects(database)).toEqual(['recent-sent', 'due', 'failing', 'leased', 'latest-digest', 'open-alert']);
    expect(lastDigestAt(database, 'main')).toBe(T0 - MINUTE);
    // podwarden_emails_total is a counter: deleted messages still count.
    expect(outboxCountsByAccount(database)).toEqual(counts);
    expect(outboxCounts(database)).toEqual(total);
    expect(counts.map(({ account, sent, abandoned }) => [account, sent, abandoned])).toEqual([
      ['main', 6, 1],
      ['other', 1, 0],
    ]);

    // Again at the same time: nothing more to delete, nothing counted twice.
    expect((await applyRetention(database, policy, NOW)).emailsDeleted).toBe(0);
    expect(outboxCountsByAccount(database)).toEqual(counts);
  });
});

describe('applyRetention on the Alertmanager outbox', () => {
  it('deletes rows finished before the retention and keeps rows still delivering or finished recently', async () => {
    const database = temp.open();
    const deliver = (alertId: number, at: number) => {
      const row = allDeliveries(database).find((r) => r.alertId === alertId);
      if (!row) throw new Error(`no row for alert ${alertId}`);
      expect(claimDelivery(database, row.id, at, at + MINUTE)).toBe(true);
      markDelivered(database, row, at, at + HOUR);
    };
    const [resolvedLongAgo, closed, firing, resolvedRecently, leased] = ['a', 'b', 'c', 'd', 'e'].map((key) =>
      alert(database, key, null),
    ) as [number, number, number, number, number];
    for (const id of [resolvedLongAgo, closed, firing, resolvedRecently, leased])
      ensureFiring(database, AM, { id, key: `k${id}`, account: 'a' }, T0);
    const rowOf = (alertId: number) => allDeliveries(database).find((r) => r.alertId === alertId)?.id as number;

    deliver(resolvedLongAgo, T0);
    markResolving(database, rowOf(resolvedLongAgo), T0 + HOUR);
    deliver(resolvedLongAgo, T0 + HOUR);
    finishDelivery(database, rowOf(closed), T0, 'no longer routed here');
    deliver(firing, T0);
    deliver(resolvedRecently, T0);
    markResolving(database, rowOf(resolvedRecently), NOW - HOUR);
    deliver(resolvedRecently, NOW - HOUR);
    expect(claimDelivery(database, rowOf(leased), NOW - MINUTE, NOW + MINUTE)).toBe(true);

    expect((await applyRetention(database, policy, NOW)).alertmanagerDeliveriesDeleted).toBe(2);
    expect(allDeliveries(database).map((row) => row.alertId)).toEqual([firing, resolvedRecently, leased]);
    expect((await applyRetention(database, policy, NOW)).alertmanagerDeliveriesDeleted).toBe(0);
  });
});

describe('applyRetention on a channel of its own', () => {
  it("deletes another channel's old finished rows as it does email's and Alertmanager's, counted per channel", async () => {
    const database = temp.open();
    const emailTotals = outboxCounts(database);
    const queue = (name: string, createdAt: number, alertId?: number) =>
      queueRow(database, {
        channel: 'webhook',
        groupKey: `group:${name}`,
        account: 'main',
        reason: alertId === undefined ? 'firing' : 'episode',
        alertKeys: [],
        payload: alertId === undefined ? { name } : null,
        createdAt,
        nextAttemptAt: createdAt,
        ...(alertId === undefined ? {} : { target: 'http://hook', alertId, state: 'firing' as const }),
      }).id;
    const delivered = queue('old-delivered', T0);
    expect(claimRow(database, delivered, T0, T0 + MINUTE)).toBe(true);
    recordDelivered(database, { id: delivered, state: null }, T0, '200');
    recordAbandoned(database, queue('old-abandoned', T0), T0 + HOUR, 'gave up');
    const recent = queue('recent', NOW - HOUR);
    recordDelivered(database, { id: recent, state: null }, NOW - HOUR, '200');
    queue('due', T0);
    const episode = queue('episode', T0, alert(database, 'w', T0 + HOUR));
    recordClosed(database, episode, T0 + HOUR, 'resolved');

    await applyRetention(database, policy, NOW);
    expect(rowsOf(database, ['webhook']).map((row) => row.groupKey)).toEqual(['group:recent', 'group:due']);
    expect(
      database.sqlite.prepare("SELECT account, sent, abandoned FROM outbox_pruned WHERE channel = 'webhook'").all(),
    ).toEqual([{ account: 'main', sent: 1, abandoned: 1 }]);
    // podwarden_emails_total counts email alone.
    expect(outboxCounts(database)).toEqual(emailTotals);
  });
});
