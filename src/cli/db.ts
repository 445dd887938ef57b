import { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { compactDatabase } from '../db/compact.js';
import { DatabaseCorruptError } from '../db/errors.js';
import { integrityProblems } from '../db/integrity.js';
import { formatBytes } from '../format.js';
import { configOption } from './config-option.js';
import { withDatabase } from './with-database.js';

/** `podwarden db check` (read-only full integrity check; exit 1 when not intact) and `db compact`. */
export function dbCommand(): Command {
  const command = new Command('db').description('Look after the database.');
  command
    .command('check')
    .description("Run SQLite's full integrity check on the database (read-only).")
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const path = config.database.path;
      const { problems, schemaVersion } = await withDatabase(
        path,
        { readonly: true, check: false },
        async (database) => ({
          problems: await integrityProblems(database, 'full'),
          schemaVersion: database.schemaVersion,
        }),
      );
      if (problems.length > 0) {
        // The same advice as a refused start, with every problem listed.
        throw new DatabaseCorruptError(path, problems);
      }
      process.stdout.write(`database ${path}: ok (integrity_check, schema version ${schemaVersion})\n`);
    });
  command
    .command('compact')
    .description(
      'Return the free pages left by deleted rows to the file system (SQLite VACUUM); stop the daemon first.',
    )
    .addOption(configOption())
    .action(async (options: { config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const path = config.database.path;
      // Not migrated here: the daemon migrates at start; this only rewrites what is there.
      const result = await withDatabase(path, { migrate: false }, (database) => compactDatabase(database, path));
      process.stdout.write(
        result.compacted
          ? `database ${path}: compacted from ${formatBytes(result.beforeBytes)} to ${formatBytes(result.afterBytes)}\n`
          : `database ${path}: nothing to compact (${formatBytes(result.beforeBytes)}, no free pages)\n`,
      );
    });
  return command;
}
