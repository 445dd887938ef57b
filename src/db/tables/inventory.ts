import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, trackedColumns } from './columns.js';

export const clusters = sqliteTable(
  'clusters',
  {
    account: accountColumn(),
    clusterId: text('cluster_id').notNull(),
    name: text('name').notNull(),
    type: text('type'),
    gpuTypeId: text('gpu_type_id'),
    gpuCountPerPod: integer('gpu_count_per_pod'),
    podCount: integer('pod_count'),
    podsByStatus: text('pods_by_status', { mode: 'json' }).$type<Record<string, number>>().notNull(),
    dataCenterId: text('data_center_id'),
    createdAt: integer('created_at'),
    ...trackedColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.clusterId] })],
);

/** Serverless endpoints (`/v2/serverless`). */
export const endpoints = sqliteTable(
  'endpoints',
  {
    account: accountColumn(),
    endpointId: text('endpoint_id').notNull(),
    name: text('name').notNull(),
    type: text('type'),
    gpuPools: text('gpu_pools', { mode: 'json' }).$type<string[]>(),
    gpuCount: integer('gpu_count'),
    workersMin: integer('workers_min'),
    workersMax: integer('workers_max'),
    idleTimeoutS: integer('idle_timeout_s'),
    createdAt: integer('created_at'),
    ...trackedColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.endpointId] })],
);

/** The workers `summary` of an endpoint at one poll. */
export const endpointWorkerSamples = sqliteTable(
  'endpoint_worker_samples',
  {
    account: accountColumn(),
    endpointId: text('endpoint_id').notNull(),
    observedAt: integer('observed_at').notNull(),
    running: integer('running').notNull(),
    idle: integer('idle').notNull(),
    initializing: integer('initializing').notNull(),
    throttled: integer('throttled').notNull(),
    unhealthy: integer('unhealthy').notNull(),
    total: integer('total').notNull(),
  },
  // Leads with time, like pod_samples: recent samples of every endpoint are one range.
  (t) => [primaryKey({ columns: [t.account, t.observedAt, t.endpointId] })],
);

/**
 * Each endpoint's worker samples folded to what the waste rule asks: the latest summary and the
 * latest sample with running workers. Kept by triggers on endpoint_worker_samples (migration
 * 0020), so every writer (the collector, retention, the CLI, a user's sqlite3) keeps it exact, and
 * the rule reads a row per endpoint instead of grouping 12 hours of samples.
 */
export const endpointActivity = sqliteTable(
  'endpoint_activity',
  {
    account: accountColumn(),
    endpointId: text('endpoint_id').notNull(),
    latestAt: integer('latest_at').notNull(),
    running: integer('running').notNull(),
    idle: integer('idle').notNull(),
    initializing: integer('initializing').notNull(),
    unhealthy: integer('unhealthy').notNull(),
    /** The latest sample with running workers, or null when no stored sample has any. */
    lastBusyAt: integer('last_busy_at'),
  },
  (t) => [primaryKey({ columns: [t.account, t.endpointId] })],
);

export const networkVolumes = sqliteTable(
  'network_volumes',
  {
    account: accountColumn(),
    networkVolumeId: text('network_volume_id').notNull(),
    name: text('name').notNull(),
    sizeGb: integer('size_gb').notNull(),
    /** The API's `dataCenter`, under the name every other table uses. */
    dataCenterId: text('data_center_id'),
    type: text('type'),
    ...trackedColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.networkVolumeId] })],
);

/**
 * When each item of a rotating collector (an endpoint's workers…) was last fetched, so a
 * collector short of request budget can fetch the stalest first and report staleness.
 */
export const itemFreshness = sqliteTable(
  'item_freshness',
  {
    account: accountColumn(),
    kind: text('kind').notNull(),
    itemId: text('item_id').notNull(),
    lastFetchedAt: integer('last_fetched_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.account, t.kind, t.itemId] })],
);
