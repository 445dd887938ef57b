import { and, asc, eq, gte, inArray, isNull, lte } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import type { AlertInput, AlertRecord } from '../../src/db/alerts.js';
import type { OutboxRow } from '../../src/db/channel-outbox.js';
import { type OutboxRecord, toEmailRecord } from '../../src/db/notifications.js';
import type { Database } from '../../src/db/open.js';
import {
  alerts,
  channelOutbox,
  clusters,
  endpoints,
  endpointWorkerSamples,
  gpuStock,
  networkVolumes,
  type StockCloud,
} from '../../src/db/schema.js';
import { type EndpointInput, storeEndpointPoll, type WorkerSampleInput } from '../../src/db/serverless.js';

/**
 * What tests read and set up in the store beyond what the daemon does: plain drizzle reads and
 * writes of the tables, or a write through the daemon's own store function.
 */

/** Opens an episode (a tick opens them with applyAlertChanges). */
export async function insertAlert(database: Database, input: AlertInput): Promise<AlertRecord> {
  return database.db.insert(alerts).values(input).returning().get();
}

/** Idempotent: an episode resolves once. */
export async function markAlertResolved(database: Database, id: number, at: number): Promise<void> {
  database.db
    .update(alerts)
    .set({ resolvedAt: at })
    .where(and(eq(alerts.id, id), isNull(alerts.resolvedAt)))
    .run();
}

/** Episodes still open (pending or firing), oldest first. */
export async function openAlerts(database: Database): Promise<AlertRecord[]> {
  return database.db.select().from(alerts).where(isNull(alerts.resolvedAt)).orderBy(asc(alerts.id)).all();
}

/** Writes an email to the outbox as the pipeline would. */
export async function insertOutbox(
  database: Database,
  message: Omit<
    OutboxRecord,
    'id' | 'attempts' | 'leaseUntil' | 'lastError' | 'sentAt' | 'smtpResponse' | 'abandonedAt'
  >,
): Promise<OutboxRecord> {
  const { messageId, to, subject, text, html, ...row } = message;
  const payload = { messageId, to, subject, text, html };
  return toEmailRecord(
    database.db
      .insert(channelOutbox)
      .values({ ...row, channel: 'email', payload })
      .returning()
      .get(),
  );
}

/** Every outbox row of the channels given, oldest first. */
export async function rowsOf(database: Database, channels: readonly string[]): Promise<OutboxRow[]> {
  return database.db
    .select()
    .from(channelOutbox)
    .where(inArray(channelOutbox.channel, [...channels]))
    .orderBy(asc(channelOutbox.id))
    .all();
}

type Inventory = typeof clusters | typeof endpoints | typeof networkVolumes;

/** The account's live (not gone) items of an inventory table, in key order. */
async function liveRows<T extends Inventory>(
  database: Database,
  table: T,
  account: string,
): Promise<T['$inferSelect'][]> {
  const inventory: Inventory = table;
  return database.db
    .select()
    .from(inventory)
    .where(and(eq(inventory.account, account), isNull(inventory.goneAt)))
    .orderBy(...(getTableConfig(inventory).primaryKeys[0]?.columns ?? []))
    .all() as T['$inferSelect'][];
}

export const liveClusters = (database: Database, account: string) => liveRows(database, clusters, account);
export const liveEndpoints = (database: Database, account: string) => liveRows(database, endpoints, account);
export const liveNetworkVolumes = (database: Database, account: string) => liveRows(database, networkVolumes, account);

/** A serverless poll of the endpoint list alone: upserts them and marks the missing ones gone. */
export async function syncEndpoints(database: Database, account: string, list: readonly EndpointInput[], now: number) {
  const unreadable = { ids: [], anonymous: false };
  return storeEndpointPoll(database, {
    account,
    endpoints: list,
    unreadable,
    samples: [],
    fetchedKind: '',
    fetched: [],
    now,
  });
}

/** Stores worker samples alone through the serverless poll: an unreadable list marks no endpoint gone. */
export async function insertWorkerSamples(
  database: Database,
  account: string,
  samples: readonly WorkerSampleInput[],
): Promise<void> {
  const unreadable = { ids: [], anonymous: true };
  await storeEndpointPoll(database, {
    account,
    endpoints: [],
    unreadable,
    samples,
    fetchedKind: '',
    fetched: [],
    now: 0,
  });
}

/** Every endpoint's worker samples with from <= observed_at <= to, oldest first. */
export async function workerSamplesBetween(database: Database, account: string, from: number, to: number) {
  const samples = endpointWorkerSamples;
  return database.db
    .select()
    .from(samples)
    .where(and(eq(samples.account, account), gte(samples.observedAt, from), lte(samples.observedAt, to)))
    .orderBy(asc(samples.observedAt), asc(samples.endpointId))
    .all();
}

/** Every change of one GPU type's stock in one cloud, oldest first. */
export async function gpuStockHistory(
  database: Database,
  key: { account: string; gpuTypeId: string; cloud: StockCloud },
) {
  return database.db
    .select()
    .from(gpuStock)
    .where(and(eq(gpuStock.account, key.account), eq(gpuStock.gpuTypeId, key.gpuTypeId), eq(gpuStock.cloud, key.cloud)))
    .orderBy(asc(gpuStock.sinceAt))
    .all();
}
