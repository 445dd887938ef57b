import { DurationError, parseDuration } from '../duration.js';
import { UsageError } from './exit.js';

/** A duration argument in ms; a malformed one, or one below `atLeast.ms`, is a usage error naming `flag`. */
export function durationArgument(flag: string, text: string, atLeast?: { ms: number; expected: string }): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (error) {
    if (error instanceof DurationError) throw new UsageError(`${flag}: ${error.message}`);
    throw error;
  }
  if (atLeast && ms < atLeast.ms) throw new UsageError(`${flag}: expected ${atLeast.expected}, got "${text}"`);
  return ms;
}

/** A `--port` argument: 0 (any free port) to 65535. */
export function portArgument(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port: expected an integer from 0 to 65535, got "${text}"`);
  }
  return port;
}

/** An ISO 8601 instant given to `flag`, in ms; `or` names what else it accepts in the error. */
export function instantArgument(flag: string, text: string, or = ''): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) {
    throw new UsageError(`${flag}: expected an ISO 8601 time such as 2026-11-02T09:00:00Z${or}, got "${text}"`);
  }
  return ms;
}
