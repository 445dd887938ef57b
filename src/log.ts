import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { redact } from './redact.js';

export type { Logger };

/** Every line passes through `redact` on its way out, whatever field a secret hid in. */
const hooks = { streamWrite: redact };

export interface LogOptions {
  level?: string;
  /** Human-readable output; defaults to on when stderr is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go (tests capture them); defaults to stderr. */
  destination?: NodeJS.WritableStream;
  /** A file the JSON lines go to instead (truncated first): the demo's log beside its mail. */
  file?: string;
}

/** Structured JSON logs on stderr (stdout is for command output). */
export function createLogger(options: LogOptions = {}): Logger {
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !options.destination);
  const level = options.level ?? process.env.PODWARDEN_LOG_LEVEL ?? 'info';
  if (pretty) {
    return pino({
      level,
      hooks,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss' } },
    });
  }
  const destination =
    options.destination ??
    (options.file === undefined
      ? pino.destination({ fd: 2, sync: true })
      : pino.destination({ dest: options.file, sync: true, append: false, mkdir: true }));
  return pino({ level, hooks, base: undefined }, destination as pino.DestinationStream);
}

/**
 * One readable line per entry on stderr, whatever stderr is: for consoles a person watches
 * between the lines a command prints (`podwarden sim`), where a raw JSON line is noise.
 */
export function consoleLogger(level = process.env.PODWARDEN_LOG_LEVEL ?? 'info'): Logger {
  const colorize = process.stderr.isTTY === true && !process.env.NO_COLOR;
  const stream = pretty({
    destination: 2,
    sync: true,
    singleLine: true,
    colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
  return pino({ level, hooks, base: undefined }, stream);
}

/** A logger that discards everything, for library callers and tests that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
