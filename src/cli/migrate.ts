import { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { openDatabase } from '../db/open.js';
import { configOption } from './config-option.js';
import { loggerFor } from './logger.js';

/**
 * `podwarden migrate`: applies pending migrations to the configured database and prints each one
 * it applied. The daemon migrates at start too; this lets an operator do it first, on purpose.
 */
export function migrateCommand(): Command {
  return new Command('migrate')
    .description('Create the database if needed and apply pending schema migrations.')
    .addOption(configOption())
    .addHelpText(
      'after',
      '\nPrints each migration applied, or that the database is up to date. Refuses (exit 1) a\ndatabase migrated by a newer podwarden.\n',
    )
    .action((options: { config?: string }) => {
      const config = loadConfig({ path: options.config, env: process.env });
      const log = loggerFor(config);
      const path = config.database.path;
      const database = openDatabase(path, { log, migrate: true });
      database.close();
      for (const tag of database.applied) process.stdout.write(`applied ${tag}\n`);
      const state = database.applied.length > 0 ? 'now at' : 'up to date at';
      process.stdout.write(`database ${path}: ${state} schema version ${database.schemaVersion}\n`);
    });
}
