import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import { Daemon } from '../../src/daemon.js';
import { DatabaseLockedError, holderPathOf, lockDatabase } from '../../src/db/daemon-lock.js';
import { silentLogger } from '../../src/log.js';
import { useTempDatabases } from './support.js';

const temp = useTempDatabases();
const at = (ms: number): Clock => ({ now: () => ms }) as Clock;
const T = Date.UTC(2026, 10, 2, 9, 30);

describe('the daemon lock', () => {
  it('lets one holder in at a time, names it to the next, and is free again once released', () => {
    const path = join(temp.dir(), 'podwarden.db');
    const lock = lockDatabase(path, { clock: at(T) });
    const holder = JSON.parse(readFileSync(holderPathOf(path), 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname(), since: T });

    let refused: unknown;
    try {
      lockDatabase(path, { clock: at(T + 3 * 3_600_000 + 12 * 60_000) });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DatabaseLockedError);
    expect((refused as Error).message).toBe(
      `open database ${path}: it is in use by podwarden${holder.command ? ` ${holder.command}` : ''} with pid ${process.pid} on host ${hostname()}, ` +
        'running since Mon 2 Nov, 09:30 UTC (3h 12m ago). Only one daemon (run, collect, demo) may run on a database: ' +
        'stop that one first, or point database.path at another file. why, snooze, silence and db check work beside it',
    );
    // The refusal took nothing from the holder.
    expect(() => lockDatabase(path)).toThrow(DatabaseLockedError);

    lock.release();
    expect(existsSync(holderPathOf(path))).toBe(false);
    lockDatabase(path).release();
  });

  it('is decided by the lock alone: a note left by a dead holder blocks nothing, a missing one is said so', () => {
    const path = join(temp.dir(), 'podwarden.db');
    // A note naming a live process (this one) and no lock held: stale, so ignored.
    writeFileSync(holderPathOf(path), JSON.stringify({ pid: process.pid, host: hostname(), since: T, command: 'run' }));
    const lock = lockDatabase(path);
    writeFileSync(holderPathOf(path), 'not json');
    expect(() => lockDatabase(path)).toThrow(/in use by another podwarden \(it has not written down who it is yet\)/);
    lock.release();
  });

  it('is one lock per file, whatever path names it', () => {
    const real = join(temp.dir(), 'real');
    mkdirSync(real);
    symlinkSync(real, join(temp.dir(), 'linked'));
    const lock = lockDatabase(join(real, 'podwarden.db'));
    expect(() => lockDatabase(join(temp.dir(), 'linked', 'podwarden.db'))).toThrow(DatabaseLockedError);
    writeFileSync(join(real, 'podwarden.db'), '');
    symlinkSync(join(real, 'podwarden.db'), join(temp.dir(), 'file-link.db'));
    expect(() => lockDatabase(join(temp.dir(), 'file-link.db'))).toThrow(DatabaseLockedError);
    lock.release();
  });

  it('holds for as long as a daemon has the database open', async () => {
    const config = defaultConfig([{ name: 'main', apiKey: 'unused', restBaseUrl: 'http://127.0.0.1:9/v2' }]);
    config.database.path = join(temp.dir(), 'podwarden.db');
    const clock = at(T);
    const first = await Daemon.open({ config, clock, log: silentLogger() });
    await expect(Daemon.open({ config, clock, log: silentLogger() })).rejects.toThrow(DatabaseLockedError);
    await first.close();
    await (await Daemon.open({ config, clock, log: silentLogger() })).close();
  });
});
