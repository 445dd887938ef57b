import { type Clock, toIso } from '../clock.js';
import { createLogger, type Logger } from '../log.js';

/** A warning or error logged during a replay, at the virtual time it was logged. */
export interface ReplayWarning {
  at: string;
  level: 'warn' | 'error' | 'fatal';
  msg: string;
  /** The line's other fields (component, account, collector, error…), as logged. */
  fields: Record<string, unknown>;
}

const LEVELS: Record<number, ReplayWarning['level']> = { 40: 'warn', 50: 'error', 60: 'fatal' };

/**
 * A logger whose warnings (redacted; lines below `warn` dropped) are kept for the replay's report
 * instead of burying the progress line: a backtest injects faults on purpose, and the daemon warns.
 */
export function warningCollector(clock: Clock, level: string): { log: Logger; warnings: ReplayWarning[] } {
  const warnings: ReplayWarning[] = [];
  const destination = {
    write(line: string) {
      const { level: number, msg, time: _time, ...fields } = JSON.parse(line) as Record<string, unknown>;
      const named = LEVELS[Number(number)];
      // pino writes synchronously on the logging call, so the clock stands where the line was logged.
      if (named) warnings.push({ at: toIso(clock.now()), level: named, msg: String(msg ?? ''), fields });
      return true;
    },
  } as unknown as NodeJS.WritableStream;
  return { log: createLogger({ level, pretty: false, destination }), warnings };
}
