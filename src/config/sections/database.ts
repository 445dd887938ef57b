import { resolve } from 'node:path';
import { z } from 'zod';
import { duration, type ParseContext, withMs } from '../fields.js';

/** better-sqlite3's name for a database that lives only in memory; it is not a path. */
const IN_MEMORY = ':memory:';

/** `database`: the SQLite file (relative to the config file's folder) and how long rows are kept. */
export function databaseSection(ctx: ParseContext) {
  return z
    .strictObject({
      path: z
        .string()
        .min(1)
        .transform((path) => (path === IN_MEMORY ? path : resolve(ctx.baseDir, path)))
        .prefault('./data/podwarden.db'),
      // Per level, so the 1 GB a month of a 2,000-Pod account allows goes where it is read:
      // raw samples cover every rule's window, rollups the history (bench:db-size).
      retention: withMs(
        {
          rawSamples: duration().prefault('2d'),
          fiveMinuteRollups: duration().prefault('7d'),
          /** The hourly rollups (the key predates the 5-minute level's own). */
          rollups: duration().prefault('400d'),
          /** Sent or abandoned emails and finished Alertmanager deliveries. */
          outbox: duration().prefault('30d'),
        },
        ['rawSamples', 'fiveMinuteRollups', 'rollups', 'outbox'],
      ).prefault({}),
    })
    .prefault({});
}
