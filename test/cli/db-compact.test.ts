import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { configWithFilledDatabase } from '../db/support.js';
import { runCli } from '../helpers/cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-dbcompact-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const configFor = (name: string) => configWithFilledDatabase(dir, name);

/** Deletes every other collector run, as retention would: pages go free, the file keeps its size. */
function thinOut(dbPath: string): { kept: number; freeBytes: number } {
  const database = openDatabase(dbPath);
  try {
    database.sqlite.exec('DELETE FROM collector_runs WHERE id % 4 != 0');
    database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    const pragma = (name: string) => database.sqlite.pragma(name, { simple: true }) as number;
    return {
      kept: database.sqlite.prepare('SELECT count(*) FROM collector_runs').pluck().get() as number,
      freeBytes: pragma('freelist_count') * pragma('page_size'),
    };
  } finally {
    database.close();
  }
}

describe('podwarden db compact', () => {
  it('gives back the pages deleted rows left free, keeps every remaining row, and says by how much', async () => {
    const { configPath, dbPath } = configFor('thinned');
    const { kept, freeBytes } = thinOut(dbPath);
    const before = statSync(dbPath).size;
    expect(freeBytes).toBeGreaterThan(100_000);

    const result = await runCli(['db', 'compact', '--config', configPath]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^database ${dbPath}: compacted from \\d+(\\.\\d+)? kB to \\d+(\\.\\d+)? kB\\n$`),
    );
    expect(statSync(dbPath).size).toBeLessThanOrEqual(before - freeBytes);

    const check = await runCli(['db', 'check', '--config', configPath]);
    expect(check.code).toBe(0);
    const database = openDatabase(dbPath, { readonly: true });
    try {
      expect(database.sqlite.prepare('SELECT count(*) FROM collector_runs').pluck().get()).toBe(kept);
    } finally {
      database.close();
    }

    const again = await runCli(['db', 'compact', '--config', configPath]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^database ${dbPath}: nothing to compact \\(.+, no free pages\\)\\n$`));
  }, 60_000);

  it('refuses while another process has the database open, naming it and what to do, and changes nothing', async () => {
    const { configPath, dbPath } = configFor('in-use');
    thinOut(dbPath);
    const daemon = openDatabase(dbPath);
    try {
      const before = statSync(dbPath).size;
      const result = await runCli(['db', 'compact', '--config', configPath]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`compact database ${dbPath}: another process has it open (a running podwarden?)`);
      expect(result.stderr).toContain('Stop it, then run this again');
      expect(statSync(dbPath).size).toBe(before);
      // The other process's writes go on as before.
      daemon.sqlite.exec('DELETE FROM collector_runs WHERE id = 4');
    } finally {
      daemon.close();
    }
  }, 60_000);
});
