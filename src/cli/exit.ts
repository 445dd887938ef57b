import type { Command } from 'commander';
import { EXIT_FAILURE, EXIT_USAGE } from '../exit-codes.js';

/** Bad usage or configuration: the command exits 2 with this message. */
export class UsageError extends Error {
  readonly exitCode = EXIT_USAGE;
}

export function exitCodeOf(error: unknown): number {
  if (error && typeof error === 'object' && 'exitCode' in error && typeof error.exitCode === 'number') {
    return error.exitCode;
  }
  return EXIT_FAILURE;
}

/**
 * commander exits (code 1) on a usage error unless told not to, and a subcommand copies that
 * setting when created: set it on the whole tree, so every usage error reaches main and exits 2.
 */
export function throwOnUsageErrors(command: Command): Command {
  command.exitOverride();
  for (const sub of command.commands) throwOnUsageErrors(sub);
  return command;
}
