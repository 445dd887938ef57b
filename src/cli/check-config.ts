import { Command } from 'commander';
import { configAsYaml } from '../config/display.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { EXIT_USAGE } from '../exit-codes.js';
import { redact } from '../redact.js';
import { configOption } from './config-option.js';

/** `podwarden check-config`: the effective configuration (exit 0), or every problem on stderr (exit 2). */
export function checkConfigCommand(): Command {
  return new Command('check-config')
    .description('Validate the configuration and print it with defaults filled in and secrets masked.')
    .addOption(configOption())
    .addHelpText(
      'after',
      '\nExits 0 and prints the effective configuration as YAML on stdout, or exits 2 and prints\nevery problem as "path: message", one per line, on stderr.\n',
    )
    .action((options: { config?: string }) => {
      try {
        const config = loadConfig({ path: options.config, env: process.env });
        process.stdout.write(redact(`# podwarden effective configuration (secrets masked)\n${configAsYaml(config)}`));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        process.stderr.write(`${redact(error.message)}\n`);
        process.exitCode = EXIT_USAGE;
      }
    });
}
