import { and, asc, eq } from 'drizzle-orm';
import { recordChanges } from './change-history.js';
import { type LatestInput, latestRows } from './latest.js';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { type CatalogProduct, cpuTypes, dataCenters, gpuAvailability, gpuTypes } from './schema.js';
import { perDatabase, placeholdersFor, rowWriter } from './statements.js';

export type GpuAvailabilityRecord = typeof gpuAvailability.$inferSelect;

/** Stock and prices of one GPU type for one product, globally (dataCenterId '') or in one data center. */
export interface GpuAvailabilityInput {
  gpuTypeId: string;
  product: CatalogProduct;
  dataCenterId: string;
  availability: string | null;
  priceSecure: number | null;
  priceCommunity: number | null;
  priceServerless: number | null;
  maxCountSecure: number | null;
  maxCountCommunity: number | null;
}

const observedFields = [
  'availability',
  'priceSecure',
  'priceCommunity',
  'priceServerless',
  'maxCountSecure',
  'maxCountCommunity',
] as const satisfies ReadonlyArray<keyof GpuAvailabilityInput>;

const COLUMNS = `account, gpu_type_id AS gpuTypeId, product, data_center_id AS dataCenterId, availability,
  price_secure AS priceSecure, price_community AS priceCommunity, price_serverless AS priceServerless,
  max_count_secure AS maxCountSecure, max_count_community AS maxCountCommunity`;

const statements = perDatabase((database) => ({
  // SQLite takes the bare columns of a max() aggregate from the row holding the maximum.
  latest: database.sqlite.prepare<[string], GpuAvailabilityRecord>(
    `SELECT ${COLUMNS}, max(since_at) AS sinceAt, last_seen_at AS lastSeenAt FROM gpu_availability
     WHERE account = ? GROUP BY gpu_type_id, product, data_center_id`,
  ),
  touch: database.sqlite.prepare<[number, string, string, string, string, number]>(
    `UPDATE gpu_availability SET last_seen_at = max(last_seen_at, ?)
     WHERE account = ? AND gpu_type_id = ? AND product = ? AND data_center_id = ? AND since_at = ?`,
  ),
  insert: rowWriter<typeof gpuAvailability.$inferInsert>(
    database,
    database.db.insert(gpuAvailability).values(placeholdersFor(gpuAvailability)),
  ),
}));

const keyOf = (row: { gpuTypeId: string; product: string; dataCenterId: string }) =>
  `${row.gpuTypeId}\u0000${row.product}\u0000${row.dataCenterId}`;

/** Records one catalog poll with change-only history (see recordChanges); storeCatalogPoll's part. */
function recordGpuAvailability(
  database: Database,
  account: string,
  observations: readonly GpuAvailabilityInput[],
  now: number,
): { changed: number; unchanged: number } {
  const s = statements(database);
  return recordChanges<GpuAvailabilityInput, GpuAvailabilityRecord>(
    database,
    {
      touch: (row, at) => s.touch.run(at, row.account, row.gpuTypeId, row.product, row.dataCenterId, row.sinceAt),
      insert: s.insert,
    },
    () => new Map(s.latest.all(account).map((row) => [keyOf(row), row])),
    observations,
    { key: keyOf, row: (observation) => ({ account, ...observation }), same: sameFigures },
    now,
  );
}

function sameFigures(previous: GpuAvailabilityRecord, observation: GpuAvailabilityInput): boolean {
  for (const field of observedFields) if (previous[field] !== observation[field]) return false;
  return true;
}

/** The current figures of every GPU type, product and data center of an account. */
export async function latestGpuAvailability(database: Database, account: string): Promise<GpuAvailabilityRecord[]> {
  return statements(database).latest.all(account);
}

type HistoryKey = { account: string; gpuTypeId: string; product: CatalogProduct; dataCenterId: string };

/** Every change of one GPU type's figures, oldest first. */
export const gpuAvailabilityHistory = outsideTransaction(gpuAvailabilityHistorySync);

/** gpuAvailabilityHistory, for a store function reading it inside its own (snapshot) transaction. */
export function gpuAvailabilityHistorySync(database: Database, key: HistoryKey): GpuAvailabilityRecord[] {
  return database.db
    .select()
    .from(gpuAvailability)
    .where(
      and(
        eq(gpuAvailability.account, key.account),
        eq(gpuAvailability.gpuTypeId, key.gpuTypeId),
        eq(gpuAvailability.product, key.product),
        eq(gpuAvailability.dataCenterId, key.dataCenterId),
      ),
    )
    .orderBy(asc(gpuAvailability.sinceAt))
    .all();
}

/**
 * One catalog poll in one transaction: the GPU types, CPU types and data centers upserted, and
 * the availability recorded (recordGpuAvailability): what `observed` says, plus what `vanished`
 * makes of the figures stored before this poll (a pure function, run inside the transaction).
 */
export async function storeCatalogPoll(
  database: Database,
  poll: {
    account: string;
    gpuTypes: readonly GpuTypeInput[];
    cpuTypes: readonly CpuTypeInput[];
    dataCenters: readonly DataCenterInput[];
    observed: readonly GpuAvailabilityInput[];
    vanished: (stored: readonly GpuAvailabilityRecord[]) => GpuAvailabilityInput[];
    now: number;
  },
): Promise<number> {
  const { account, now } = poll;
  return database.transaction(() => {
    const stored = statements(database).latest.all(account);
    const observations = [...poll.observed, ...poll.vanished(stored)];
    return (
      upsertGpuTypeRows(database, account, poll.gpuTypes, now) +
      upsertCpuTypeRows(database, account, poll.cpuTypes, now) +
      upsertDataCenterRows(database, account, poll.dataCenters, now) +
      recordGpuAvailability(database, account, observations, now).changed
    );
  });
}

/** Latest description of each GPU type, CPU type and data center (no history: they rarely change). */
const upsertGpuTypeRows = latestRows(gpuTypes, 'gpuTypeId');
const upsertCpuTypeRows = latestRows(cpuTypes, 'cpuTypeId');
const upsertDataCenterRows = latestRows(dataCenters, 'dataCenterId');

export type GpuTypeInput = LatestInput<typeof gpuTypes>;
export type CpuTypeInput = LatestInput<typeof cpuTypes>;
export type DataCenterInput = LatestInput<typeof dataCenters>;
