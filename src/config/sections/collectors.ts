import { z } from 'zod';
import { cronSchedule, duration, withMs } from '../fields.js';

/** The fields every collector has; `schedule` is a cron expression, in UTC. */
function common(schedule: string) {
  return {
    enabled: z.boolean().default(true).describe('Whether this collector runs.'),
    schedule: cronSchedule()
      .default(schedule)
      .describe('When it runs: a cron expression in UTC (five fields, or six with seconds first).'),
  };
}

const EVERY_5_MINUTES = '*/5 * * * *';

/**
 * Each collector's settings: its default schedule and its own options, keyed by its name. This is
 * the one list of collector names. It lives here, below src/collectors/, because the config
 * parses it; each collector file names its entry (`CollectorName`), and src/collectors/index.ts
 * must hold a collector for every entry (the compiler checks both). Alphabetical.
 */
const collectorSettings = {
  billing: withMs(
    {
      ...common('*/15 * * * *'),
      /** How far back the first run fetches history. */
      backfill: duration().prefault('30d'),
      /** Every run re-reads this much recent history, because RunPod revises recent buckets. */
      trailingWindow: duration().prefault('48h'),
      bucketSize: z.enum(['hour', 'day', 'week', 'month', 'year']).default('hour'),
    },
    ['backfill', 'trailingWindow'],
  ).prefault({}),
  catalog: z
    .strictObject({
      ...common(EVERY_5_MINUTES),
      /** The `product` filter of GET /gputypes?include=AVAILABILITY, which RunPod requires. */
      products: z
        .array(z.enum(['POD', 'CLUSTER', 'SERVERLESS']))
        .min(1)
        .prefault(['POD']),
    })
    .prefault({}),
  clusters: z.strictObject(common(EVERY_5_MINUTES)).prefault({}),
  pods: z.strictObject(common('* * * * *')).prefault({}),
  serverless: z.strictObject(common(EVERY_5_MINUTES)).prefault({}),
  /** GPU stock per GPU count from GraphQL (`lowestPrice`), which REST v2 lacks; off with api.graphql. */
  stock: z.strictObject(common(EVERY_5_MINUTES)).prefault({}),
  volumes: z.strictObject(common(EVERY_5_MINUTES)).prefault({}),
};

export type CollectorName = keyof typeof collectorSettings;

/** Every collector's name, alphabetical: what `podwarden collect` accepts and the registry holds. */
export const COLLECTOR_NAMES = Object.keys(collectorSettings).sort() as readonly CollectorName[];

/** `collectors`: which collectors run and when, one entry per collector. */
export const collectorsSection = z.strictObject(collectorSettings).prefault({});
