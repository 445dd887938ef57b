import { type Logger, pino } from 'pino';
import { redact } from './redact.js';

export type { Logger };

export interface LogOptions {
  level?: string;
  /** Human-readable output; defaults to on when stderr is a terminal. */
  pretty?: boolean;
  /** Where JSON lines go (tests capture them); defaults to stderr. */
  destination?: NodeJS.WritableStream;
}

/**
 * Structured JSON logs on stderr (stdout is for command output). Every line passes through
 * `redact` on its way out, whatever field a secret hid in.
 */
export function createLogger(options: LogOptions = {}): Logger {
  const pretty = options.pretty ?? (process.stderr.isTTY === true && !options.destination);
  const level = options.level ?? process.env.PODWARDEN_LOG_LEVEL ?? 'info';
  const hooks = { streamWrite: (line: string) => redact(line) };
  if (pretty) {
    return pino({
      level,
      hooks,
      transport: { target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss' } },
    });
  }
  const destination = options.destination ?? pino.destination({ fd: 2, sync: true });
  return pino({ level, hooks, base: undefined }, destination as pino.DestinationStream);
}

/** A logger that discards everything, for library callers and tests that do not care. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
