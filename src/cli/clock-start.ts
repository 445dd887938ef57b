import { Option } from 'commander';
import { type Clock, RealClock } from '../clock.js';
import { ScaledClock } from '../simulator/scaled-clock.js';
import { instantArgument } from './arguments.js';

/** `--clock-start`, shared by the commands that talk to an account (`run`, `collect`). */
export function clockStartOption(purpose: string): Option {
  return new Option(
    '--clock-start <time>',
    `start the daemon clock at this ISO 8601 instant and run it at real speed, ${purpose} (default: the system time)`,
  );
}

/** A scenario's clock starts at its `start`; a daemon watching it must read the same time. */
export function clockFor(clockStart: string | undefined): Clock {
  if (clockStart === undefined) return new RealClock();
  return new ScaledClock({ startMs: instantArgument('--clock-start', clockStart), speed: 1 });
}
