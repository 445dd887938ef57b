import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { LOG_LEVELS } from '../config/sections/log.js';
import { createLogger } from '../log.js';
import { durationArgument, portArgument } from './arguments.js';
import { thisProgram } from './command-line.js';
import { UsageError } from './exit.js';
import { untilSignalled } from './scenario-option.js';

interface DemoCommandOptions {
  for?: string;
  dir: string;
  port: string;
  logLevel: string;
}

/** `podwarden demo`: simulator, daemon, metrics server and a mail sink in one process, until Ctrl-C or `--for`. */
export function demoCommand(): Command {
  return new Command('demo')
    .description('Play the demo scenario: simulator, daemon, metrics and a mail folder, no RunPod account needed.')
    .option('--for <duration>', 'stop by itself after this much real time, e.g. 5m (default: until Ctrl-C)')
    .option(
      '--dir <path>',
      "folder for the demo's configuration, database and mail (its files there are replaced)",
      '.demo',
    )
    .option('--port <n>', 'port of the metrics and status server on 127.0.0.1 (0: any free port)', '9464')
    .option(
      '--log-level <level>',
      `level of the log the demo writes to podwarden.log in --dir (${LOG_LEVELS.join(', ')})`,
      'info',
    )
    .action(async (options: DemoCommandOptions) => {
      const forMs =
        options.for === undefined
          ? undefined
          : durationArgument('--for', options.for, { ms: 1, expected: 'a positive duration such as 5m' });
      const port = portArgument(options.port);
      if (!(LOG_LEVELS as readonly string[]).includes(options.logLevel)) {
        throw new UsageError(`--log-level: expected one of ${LOG_LEVELS.join(', ')}, got "${options.logLevel}"`);
      }

      const stop = new AbortController();
      void untilSignalled().then(() => stop.abort());
      const timer = forMs === undefined ? undefined : setTimeout(() => stop.abort(), forMs);
      // Loaded here so the other commands never load the demo's SMTP server.
      const { runDemo } = await import('../demo/run-demo.js');
      const logFile = join(resolve(options.dir), 'podwarden.log');
      try {
        await runDemo({
          dir: options.dir,
          listen: `127.0.0.1:${port}`,
          stopsAfter: options.for,
          signal: stop.signal,
          write: (line) => process.stdout.write(`${line}\n`),
          // JSON lines in a file the banner names: the console keeps to the story's lines.
          log: createLogger({ level: options.logLevel, file: logFile }),
          logFile,
          // This very podwarden, so the printed and mailed commands work pasted.
          program: thisProgram(),
        });
      } finally {
        clearTimeout(timer);
      }
    });
}
