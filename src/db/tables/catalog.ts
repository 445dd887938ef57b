import { integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn, oneOf, seenColumns } from './columns.js';

export const catalogProducts = ['POD', 'CLUSTER', 'SERVERLESS'] as const;
export type CatalogProduct = (typeof catalogProducts)[number];

/**
 * Stock and price history: a new row only when something changes, otherwise `last_seen_at`
 * moves, so a year of minute polls costs a row per change.
 */
export const gpuAvailability = sqliteTable(
  'gpu_availability',
  {
    account: accountColumn(),
    gpuTypeId: text('gpu_type_id').notNull(),
    product: text('product', { enum: catalogProducts }).notNull(),
    /** '' for the global figure, else the data center the availability is for. */
    dataCenterId: text('data_center_id').notNull(),
    availability: text('availability'),
    priceSecure: real('price_secure'),
    priceCommunity: real('price_community'),
    priceServerless: real('price_serverless'),
    maxCountSecure: integer('max_count_secure'),
    maxCountCommunity: integer('max_count_community'),
    sinceAt: integer('since_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.account, t.gpuTypeId, t.product, t.dataCenterId, t.sinceAt] }),
    oneOf('gpu_availability', 'product', catalogProducts),
  ],
);

export const gpuTypes = sqliteTable(
  'gpu_types',
  {
    account: accountColumn(),
    gpuTypeId: text('gpu_type_id').notNull(),
    name: text('name').notNull(),
    memoryGb: integer('memory_gb'),
    pool: text('pool'),
    manufacturer: text('manufacturer'),
    ...seenColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.gpuTypeId] })],
);

export const cpuTypes = sqliteTable(
  'cpu_types',
  {
    account: accountColumn(),
    cpuTypeId: text('cpu_type_id').notNull(),
    name: text('name').notNull(),
    groupName: text('group_name'),
    vcpuMin: integer('vcpu_min'),
    vcpuMax: integer('vcpu_max'),
    ramGbPerVcpu: real('ram_gb_per_vcpu'),
    priceSecurePerVcpu: real('price_secure_per_vcpu'),
    priceServerlessPerVcpu: real('price_serverless_per_vcpu'),
    availability: text('availability'),
    ...seenColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.cpuTypeId] })],
);

export const dataCenters = sqliteTable(
  'data_centers',
  {
    account: accountColumn(),
    dataCenterId: text('data_center_id').notNull(),
    name: text('name').notNull(),
    region: text('region'),
    globalNetwork: integer('global_network', { mode: 'boolean' }),
    networkVolumeTypes: text('network_volume_types', { mode: 'json' }).$type<string[]>(),
    compliance: text('compliance', { mode: 'json' }).$type<string[]>(),
    ...seenColumns(),
  },
  (t) => [primaryKey({ columns: [t.account, t.dataCenterId] })],
);
