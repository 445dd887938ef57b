import { SingleBar } from 'cli-progress';
import type { Logger } from '../log.js';

/** Progress of a long job counted in units (chunks, pages); the display is the reporter's business. */
export interface Progress {
  /** `count` more units are done (default 1). */
  advance(count?: number): void;
  /** Ends the display: the bar is removed and one log line says how far the job got. Idempotent. */
  finish(): void;
}

export interface ProgressOptions {
  /** What is progressing, e.g. `billing backfill`. */
  label: string;
  total: number;
  /** What a unit is, e.g. `chunks`. */
  unit: string;
  log: Logger;
  /** Where the bar draws when it is a terminal; default stderr (stdout is for command output). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Without a terminal, a log line each time this fraction of the total is passed; default 0.1. */
  logEvery?: number;
}

/**
 * A cli-progress bar on a terminal; otherwise info log lines every 10 % (a daemon's logs are
 * read later, by people and machines, and a bar's carriage returns would garble them).
 */
export function startProgress(options: ProgressOptions): Progress {
  const { label, total, unit, log } = options;
  const stream = options.stream ?? process.stderr;
  const step = Math.max(1, Math.ceil(total * (options.logEvery ?? 0.1)));
  const bar =
    stream.isTTY === true
      ? new SingleBar({
          stream,
          format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: true,
        })
      : undefined;
  let done = 0;
  let finished = false;
  if (bar) bar.start(total, 0);
  else log.info({ label, total, unit }, `${label}: started`);

  return {
    advance(count = 1) {
      if (finished || count <= 0) return;
      const before = done;
      done = Math.min(total, done + count);
      if (bar) bar.update(done);
      else if (Math.floor(done / step) > Math.floor(before / step) && done < total) {
        log.info({ label, done, total, unit, percent: percentOf(done, total) }, `${label}: ${percentOf(done, total)}%`);
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      bar?.stop();
      const fields = { label, done, total, unit, percent: percentOf(done, total) };
      if (done >= total) log.info(fields, `${label}: done`);
      else log.info(fields, `${label}: stopped at ${done}/${total} ${unit}`);
    },
  };
}

function percentOf(done: number, total: number): number {
  return total === 0 ? 100 : Math.floor((done / total) * 100);
}
