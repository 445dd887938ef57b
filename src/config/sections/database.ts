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
      retention: withMs({ rawSamples: duration().prefault('14d'), rollups: duration().prefault('400d') }, [
        'rawSamples',
        'rollups',
      ]).prefault({}),
    })
    .prefault({});
}
