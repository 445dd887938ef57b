import type { Command } from 'commander';
import { checkConfigCommand } from './check-config.js';
import { collectCommand } from './collect.js';
import { migrateCommand } from './migrate.js';
import { runCommand } from './run.js';
import { simCommand } from './sim.js';
import { simulateCommand } from './simulate.js';

/** Every podwarden command, one file each; alphabetical. */
export const commands: Array<() => Command> = [
  checkConfigCommand,
  collectCommand,
  migrateCommand,
  runCommand,
  simCommand,
  simulateCommand,
];
