import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { billingCollector } from './billing.js';
import { catalogCollector } from './catalog.js';
import { clustersCollector } from './clusters.js';
import { COLLECTOR_NAMES, type Collector, type CollectorName } from './collector.js';
import { podsCollector } from './pods.js';
import { serverlessCollector } from './serverless.js';
import { stockCollector } from './stock.js';
import { volumesCollector } from './volumes.js';

/**
 * One collector per name of the config's collector settings: the compiler refuses a name
 * without its collector, or a collector under another's name. Adding one is a file and a line here.
 */
const byName: { readonly [Name in CollectorName]: Collector<Name> } = {
  billing: billingCollector,
  catalog: catalogCollector,
  clusters: clustersCollector,
  pods: podsCollector,
  serverless: serverlessCollector,
  stock: stockCollector,
  volumes: volumesCollector,
};

/** Every collector, by name, in alphabetical order: the one registry. */
export const collectors: ReadonlyMap<CollectorName, Collector> = new Map(
  COLLECTOR_NAMES.map((name) => [name, byName[name] as Collector]),
);

/**
 * The collectors whose runs write any of `tables`, in registry order: what a value read from
 * those tables rests on, and the runs after which it may have changed.
 */
export function collectorsFeeding(...tables: readonly SQLiteTable[]): CollectorName[] {
  return [...collectors.values()]
    .filter((collector) => collector.feeds.some((table) => tables.includes(table)))
    .map((collector) => collector.name);
}
