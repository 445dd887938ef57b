import type { Command } from 'commander';
import { checkConfigCommand } from './check-config.js';
import { migrateCommand } from './migrate.js';

/** Every podwarden command, one file each; alphabetical. */
export const commands: Array<() => Command> = [checkConfigCommand, migrateCommand];
