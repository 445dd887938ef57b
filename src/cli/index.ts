import type { Command } from 'commander';
import { checkConfigCommand } from './check-config.js';
import { collectCommand } from './collect.js';
import { dbCommand } from './db.js';
import { demoCommand } from './demo.js';
import { migrateCommand } from './migrate.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { silenceCommand } from './silence.js';
import { simCommand } from './sim.js';
import { simulateCommand } from './simulate.js';
import { snoozeCommand } from './snooze.js';
import { whyCommand } from './why.js';

/** Every podwarden command, one file each; alphabetical. */
export const commands: Array<() => Command> = [
  checkConfigCommand,
  collectCommand,
  dbCommand,
  demoCommand,
  migrateCommand,
  reportCommand,
  runCommand,
  silenceCommand,
  simCommand,
  simulateCommand,
  snoozeCommand,
  whyCommand,
];
