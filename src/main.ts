#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { exitCodeOf, throwOnUsageErrors } from './cli/exit.js';
import { commands } from './cli/index.js';
import { EXIT_USAGE } from './exit-codes.js';
import { version } from './package-root.js';
import { redact } from './redact.js';

/** Parses arguments and dispatches; the commands themselves live in src/cli/, one per file. */
async function main(argv: string[]): Promise<number> {
  const program = new Command('podwarden')
    .description('Cost and capacity watchdog for RunPod accounts.')
    .version(version, '-V, --version')
    .showHelpAfterError()
    .exitOverride();
  for (const make of commands) program.addCommand(throwOnUsageErrors(make()));
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are "errors" to commander; they exit 0.
      return error.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    process.stderr.write(`podwarden: ${redact(error instanceof Error ? error.message : String(error))}\n`);
    return exitCodeOf(error);
  }
}

process.exitCode = await main(process.argv);
