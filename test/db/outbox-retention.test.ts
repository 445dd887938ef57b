import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { syncAlertmanagerOutbox } from '../../src/db/alertmanager-outbox.js';
import { type AlertInput } from '../../src/db/alerts.js';
import { claimRow, type QueuedRow, recordOutcomes } from '../../src/db/channel-outbox.js';
import { lastDigestAt } from '../../src/db/digest.js';
import { outboxCountsByAccount, outboxMessagesBetween } from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';
import { applyRetention } from '../../src/db/retention.js';
import { channelOutbox } from '../../src/db/schema.js';
import { outboxCounts } from '../helpers/email-outbox.js';
import { insertAlert, insertOutbox, markAlertResolved, rowsOf } from '../helpers/store.js';
import { DAY, HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const policy = { rawSamplesMs: HOUR, fiveMinuteRollupsMs: DAY, rollupsMs: DAY, usedLinksMs: DAY, outboxMs: DAY };
const NOW = T0 + 3 * DAY;
const AM = 'http://alertmanager:9093';

async function message(
  database: Database,
  name: string,
  createdAt: number,
  extra: { groupKey?: string; keys?: string[] } = {},
) {
  return (
    await insertOutbox(database, {
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
    })
  ).id;
}

async function sent(database: Database, name: string, at: number, extra: { groupKey?: string; keys?: string[] } = {}) {
  const id = await message(database, name, at - MINUTE, extra);
  expect(await claimRow(database, id, at - MINUTE, at)).toBe(true);
  await recordOutcomes(database, [{ kind: 'delivered', row: { id, state: null }, response: '250 ok' }], at);
  return id;
}

async function alert(database: Database, key: string, resolvedAt: number | null): Promise<number> {
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
  const { id } = await insertAlert(database, input);
  if (resolvedAt !== null) await markAlertResolved(database, id, resolvedAt);
  return id;
}

async function subjects(database: Database): Promise<string[]> {
  return (await outboxMessagesBetween(database, 0, Number.MAX_SAFE_INTEGER)).map((row) => row.subject);
}

describe('applyRetention on the email outbox', () => {
  it('deletes old finished messages, keeps due, leased, recent and still needed ones, and the counts stay', async () => {
    const database = temp.open();
    await sent(database, 'old-sent', T0);
    await sent(database, 'other-old-sent', T0);
    const abandoned = await message(database, 'old-abandoned', T0);
    await recordOutcomes(database, [{ kind: 'failed', id: abandoned, error: 'gave up' }], T0 + HOUR);
    await sent(database, 'recent-sent', NOW - HOUR);
    await message(database, 'due', T0);
    const failing = await message(database, 'failing', T0);
    expect(await claimRow(database, failing, T0, T0 + MINUTE)).toBe(true);
    await recordOutcomes(
      database,
      [{ kind: 'retry', id: failing, nextAttemptAt: NOW + HOUR, error: 'connection refused' }],
      T0,
    );
    const leased = await message(database, 'leased', T0);
    expect(await claimRow(database, leased, NOW - MINUTE, NOW + MINUTE)).toBe(true);
    await sent(database, 'old-digest', T0 - DAY, { groupKey: 'digest:main' });
    await sent(database, 'latest-digest', T0, { groupKey: 'digest:main' });
    await alert(database, 'idle:main:nb:warn', null);
    await alert(database, 'idle:main:gone:warn', T0 + HOUR);
    await sent(database, 'open-alert', T0, { keys: ['idle:main:nb:warn'] });
    await sent(database, 'resolved-alert', T0, { keys: ['idle:main:gone:warn'] });
    const counts = await outboxCountsByAccount(database);
    const total = await outboxCounts(database);

    expect((await applyRetention(database, policy, NOW)).emailsDeleted).toBe(5);
    expect(await subjects(database)).toEqual([
      'recent-sent',
      'due',
      'failing',
      'leased',
      'latest-digest',
      'open-alert',
    ]);
    expect(await lastDigestAt(database, 'main')).toBe(T0 - MINUTE);
    // podwarden_emails_total is a counter: deleted messages still count.
    expect(await outboxCountsByAccount(database)).toEqual(counts);
    expect(await outboxCounts(database)).toEqual(total);
    expect(counts.map(({ account, sent, abandoned }) => [account, sent, abandoned])).toEqual([
      ['main', 6, 1],
      ['other', 1, 0],
    ]);

    // Again at the same time: nothing more to delete, nothing counted twice.
    expect((await applyRetention(database, policy, NOW)).emailsDeleted).toBe(0);
    expect(await outboxCountsByAccount(database)).toEqual(counts);
  });
});

describe('applyRetention on the Alertmanager outbox', () => {
  it('deletes rows finished before the retention and keeps rows still delivering or finished recently', async () => {
    const database = temp.open();
    const deliver = async (alertId: number, at: number) => {
      const row = (await rowsOf(database, ['alertmanager'])).find((r) => r.alertId === alertId);
      if (!row) throw new Error(`no row for alert ${alertId}`);
      expect(await claimRow(database, row.id, at, at + MINUTE)).toBe(true);
      await recordOutcomes(database, [{ kind: 'delivered', row, response: null, againAt: at + HOUR }], at);
    };
    const ids: number[] = [];
    for (const key of ['a', 'b', 'c', 'd', 'e']) ids.push(await alert(database, key, null));
    const [resolvedLongAgo, closed, firing, resolvedRecently, leased] = ids as [number, number, number, number, number];
    await syncAlertmanagerOutbox(database, [AM], () => true, T0);
    const rowOf = async (alertId: number) =>
      (await rowsOf(database, ['alertmanager'])).find((r) => r.alertId === alertId)?.id as number;
    const resolve = async (alertId: number, at: number) => {
      await markAlertResolved(database, alertId, at);
      await syncAlertmanagerOutbox(database, [AM], () => true, at);
    };

    await deliver(resolvedLongAgo, T0);
    await resolve(resolvedLongAgo, T0 + HOUR);
    await deliver(resolvedLongAgo, T0 + HOUR);
    await deliver(firing, T0);
    await deliver(resolvedRecently, T0);
    await resolve(resolvedRecently, NOW - HOUR);
    await deliver(resolvedRecently, NOW - HOUR);
    // Closed (as a rule no longer routed to Alertmanager is), after the syncs that would reopen it.
    const closedRow = await rowOf(closed);
    database.db
      .update(channelOutbox)
      .set({ finishedAt: T0, lastError: 'no longer routed here' })
      .where(eq(channelOutbox.id, closedRow))
      .run();
    expect(await claimRow(database, await rowOf(leased), NOW - MINUTE, NOW + MINUTE)).toBe(true);

    expect((await applyRetention(database, policy, NOW)).alertmanagerDeliveriesDeleted).toBe(2);
    expect((await rowsOf(database, ['alertmanager'])).map((row) => row.alertId)).toEqual([
      firing,
      resolvedRecently,
      leased,
    ]);
    expect((await applyRetention(database, policy, NOW)).alertmanagerDeliveriesDeleted).toBe(0);
  });
});

describe('applyRetention on a channel of its own', () => {
  it("deletes another channel's old finished rows as it does email's and Alertmanager's, counted per channel", async () => {
    const database = temp.open();
    const emailTotals = await outboxCounts(database);
    const queue = (name: string, createdAt: number, alertId?: number) => {
      const row: QueuedRow & Partial<typeof channelOutbox.$inferInsert> = {
        channel: 'webhook',
        groupKey: `group:${name}`,
        account: 'main',
        reason: alertId === undefined ? 'firing' : 'episode',
        alertKeys: [],
        payload: alertId === undefined ? { name } : null,
        createdAt,
        nextAttemptAt: createdAt,
        ...(alertId === undefined ? {} : { target: 'http://hook', alertId, state: 'firing' as const }),
      };
      return database.db.insert(channelOutbox).values(row).returning().get().id;
    };
    const finish = (id: number, set: Partial<typeof channelOutbox.$inferInsert>) =>
      database.db.update(channelOutbox).set(set).where(eq(channelOutbox.id, id)).run();
    const delivered = queue('old-delivered', T0);
    expect(await claimRow(database, delivered, T0, T0 + MINUTE)).toBe(true);
    await recordOutcomes(database, [{ kind: 'delivered', row: { id: delivered, state: null }, response: '200' }], T0);
    const abandoned = queue('old-abandoned', T0);
    await recordOutcomes(database, [{ kind: 'failed', id: abandoned, error: 'gave up' }], T0 + HOUR);
    const recent = queue('recent', NOW - HOUR);
    await recordOutcomes(
      database,
      [{ kind: 'delivered', row: { id: recent, state: null }, response: '200' }],
      NOW - HOUR,
    );
    queue('due', T0);
    const episode = queue('episode', T0, await alert(database, 'w', T0 + HOUR));
    finish(episode, { finishedAt: T0 + HOUR, lastError: 'resolved' });

    await applyRetention(database, policy, NOW);
    expect((await rowsOf(database, ['webhook'])).map((row) => row.groupKey)).toEqual(['group:recent', 'group:due']);
    expect(
      database.sqlite.prepare("SELECT account, sent, abandoned FROM outbox_pruned WHERE channel = 'webhook'").all(),
    ).toEqual([{ account: 'main', sent: 1, abandoned: 1 }]);
    // podwarden_emails_total counts email alone.
    expect(await outboxCounts(database)).toEqual(emailTotals);
  });
});
