import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { type Clock, RealClock } from '../clock.js';
import { formatDateTime, formatElapsed } from '../format.js';
import { version } from '../package-root.js';
import { DatabaseError, DatabaseReadOnlyError } from './errors.js';

/** Who holds a database's daemon lock, as it wrote down after taking it. */
const LockHolder = z.object({
  pid: z.number(),
  host: z.string(),
  /** When it took the lock, real time (epoch ms). */
  since: z.number(),
  /** Its command line after the program, e.g. `run --config /etc/podwarden.yaml`. */
  command: z.string().catch(''),
  version: z.string().catch(''),
});
type LockHolder = z.infer<typeof LockHolder>;

/** Held while a daemon writes and acts on a database; `release` lets the next one start. */
export interface DaemonLock {
  release(): void;
}

/**
 * Another daemon holds the database: two would both decide and both act (two stop requests for
 * one Pod, a false "could not be stopped" mail), so the second is refused at start.
 */
export class DatabaseLockedError extends DatabaseError {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
    now: number,
  ) {
    const who =
      holder === undefined
        ? 'another podwarden (it has not written down who it is yet)'
        : `podwarden${holder.command ? ` ${holder.command}` : ''} with pid ${holder.pid} on host ${holder.host}, ` +
          `running since ${formatDateTime(holder.since, 'UTC')} (${formatElapsed(now - holder.since)} ago)`;
    super(
      `open database ${path}`,
      `it is in use by ${who}. Only one daemon (run, collect, demo) may run on a database: stop that one ` +
        'first, or point database.path at another file. why, snooze, silence and db check work beside it',
    );
    this.name = 'DatabaseLockedError';
  }
}

export const holderPathOf = (path: string) => `${canonical(path)}.lock.json`;

/** One lock per file, however it is named: through a symlink (of the file or a folder) or a relative path. */
function canonical(path: string): string {
  return existsSync(path) ? realpathSync(path) : join(realpathSync(dirname(path)), basename(path));
}

/**
 * Takes the daemon lock of the database at `path`, or throws DatabaseLockedError naming who has
 * it. The lock is SQLite's exclusive lock on a file of its own beside the database (`<db>.lock`),
 * kept for as long as the connection is open: an OS file lock, so the kernel frees it when the
 * process dies, kill -9 included, and no stale pid can block a start. Who holds it is written to
 * `<db>.lock.json` after taking it, only for the message: the lock alone decides. Nothing in this
 * process may open the lock file other than through SQLite: closing any descriptor of it would
 * drop the process's lock (POSIX), which SQLite's own bookkeeping avoids.
 */
export function lockDatabase(path: string, options: { clock?: Clock } = {}): DaemonLock {
  const clock = options.clock ?? new RealClock();
  let file: string;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    file = canonical(path);
  } catch (error) {
    throw new DatabaseError(`lock database ${path}`, (error as Error).message, { cause: error });
  }
  const holderPath = `${file}.lock.json`;
  let sqlite: BetterSqlite3.Database | undefined;
  try {
    sqlite = new BetterSqlite3(`${file}.lock`);
    // Refuse at once: a daemon that is still running is not going to stop for us.
    sqlite.pragma('busy_timeout = 0');
    sqlite.pragma('locking_mode = EXCLUSIVE');
    // Nothing is ever written here; no journal file beside it.
    sqlite.pragma('journal_mode = OFF');
    sqlite.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    sqlite?.close();
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new DatabaseLockedError(path, readHolder(holderPath), clock.now());
    }
    if (/^SQLITE_(CANTOPEN|READONLY|PERM)/.test((error as { code?: string }).code ?? '')) {
      throw new DatabaseReadOnlyError(
        path,
        `the daemon's lock file ${file}.lock cannot be written beside it (${(error as Error).message})`,
      );
    }
    throw new DatabaseError(`lock database ${path}`, (error as Error).message, { cause: error });
  }
  const held = sqlite;
  try {
    writeHolder(holderPath, {
      pid: process.pid,
      host: hostname(),
      since: clock.now(),
      command: process.argv.slice(2).join(' '),
      version,
    });
  } catch (error) {
    held.close();
    throw new DatabaseError(`lock database ${path}`, (error as Error).message, { cause: error });
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // While still held: nobody else can have written the file in between.
      rmSync(holderPath, { force: true });
      held.close();
    },
  };
}

/** Throws DatabaseLockedError when a daemon holds the database now; takes nothing. */
export async function assertNotLocked(path: string, options: { clock?: Clock } = {}): Promise<void> {
  lockDatabase(path, options).release();
}

function writeHolder(target: string, holder: LockHolder): void {
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}

/** The holder as written down, or undefined when it is not (yet) there or unreadable. */
function readHolder(holderPath: string): LockHolder | undefined {
  try {
    return LockHolder.safeParse(JSON.parse(readFileSync(holderPath, 'utf8'))).data;
  } catch {
    return undefined;
  }
}
