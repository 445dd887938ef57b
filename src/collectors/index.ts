import { billingCollector } from './billing.js';
import { catalogCollector } from './catalog.js';
import { clustersCollector } from './clusters.js';
import type { Collector, CollectorName } from './collector.js';
import { podsCollector } from './pods.js';
import { serverlessCollector } from './serverless.js';
import { stockCollector } from './stock.js';
import { volumesCollector } from './volumes.js';

/** Every collector, by name, in alphabetical order. Adding one is a file and a line here. */
export const collectors: ReadonlyMap<CollectorName, Collector> = new Map<CollectorName, Collector>([
  ['billing', billingCollector],
  ['catalog', catalogCollector],
  ['clusters', clustersCollector],
  ['pods', podsCollector],
  ['serverless', serverlessCollector],
  ['stock', stockCollector],
  ['volumes', volumesCollector],
]);
