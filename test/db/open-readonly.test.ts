import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMatcher } from '../../src/alerts/matchers.js';
import { newSilence } from '../../src/alerts/silence.js';
import { DatabaseReadOnlyError } from '../../src/db/errors.js';
import { openDatabase } from '../../src/db/open.js';
import { insertSilence, listSilences } from '../../src/db/silences.js';
import { runCli } from '../helpers/cli.js';

/**
 * How the database is made read-only. As a normal user: a 0444 file in a 0555 folder. As root,
 * permissions do not stop writes, so the folder becomes a read-only tmpfs mount when the test may
 * mount; otherwise only the open mode is checked (a read-only connection refuses writes).
 */
let how: 'chmod' | 'mount' | 'none';
let dir: string;
let folder: string;
let path: string;
let configPath: string;

const NOW = Date.parse('2026-11-02T09:00:00Z');

// At load, not in beforeAll: `skipIf` below reads `how` when the tests are collected.
{
  dir = mkdtempSync(join(tmpdir(), 'podwarden-ro-'));
  const seed = join(dir, 'seed.db');
  const database = openDatabase(seed);
  await insertSilence(
    database,
    newSilence({
      id: 'silence-1',
      matchers: [parseMatcher('rule=waste')],
      durationMs: 100 * 365 * 24 * 3_600_000,
      comment: 'known waste',
      createdBy: 'ops',
      now: NOW,
    }),
  );
  database.close();
  folder = join(dir, 'ro');
  mkdirSync(folder);
  path = join(folder, 'podwarden.db');
  configPath = join(dir, 'podwarden.yaml');
  writeFileSync(
    configPath,
    `accounts:\n  - name: main\n    apiKey: rpa_readonly_test_0001\ndatabase:\n  path: ${path}\n`,
  );
  if (process.getuid?.() !== 0) {
    copyFileSync(seed, path);
    chmodSync(path, 0o444);
    chmodSync(folder, 0o555);
    how = 'chmod';
  } else if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', folder]).status === 0) {
    copyFileSync(seed, path);
    how = spawnSync('mount', ['-o', 'remount,ro', folder]).status === 0 ? 'mount' : 'none';
  } else {
    copyFileSync(seed, path);
    how = 'none';
  }
}

afterAll(() => {
  if (how === 'mount' || spawnSync('mountpoint', ['-q', folder]).status === 0) spawnSync('umount', [folder]);
  if (how === 'chmod') chmodSync(folder, 0o755);
  rmSync(dir, { recursive: true, force: true });
});

describe('a database podwarden may not write', () => {
  it('is opened read-only for reading: no migration, no WAL switch, no file created beside it', async () => {
    const before = readdirSync(folder).sort();
    const database = openDatabase(path, { readonly: true });
    try {
      expect(database.sqlite.readonly).toBe(true);
      expect((await listSilences(database)).map((silence) => silence.id)).toEqual(['silence-1']);
      expect(() => database.sqlite.exec('DELETE FROM silences')).toThrow(/readonly/);
    } finally {
      database.close();
    }
    expect(readdirSync(folder).sort()).toEqual(before);
  });

  it.skipIf(how === 'none')('is refused for writing as read-only, not as a failure to create it', () => {
    let refused: unknown;
    try {
      openDatabase(path).close();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DatabaseReadOnlyError);
    const message = (refused as Error).message;
    expect(message).toMatch(
      new RegExp(`^open database ${path}: the (file|directory) is read-only for podwarden \\((EACCES|EROFS)\\)`),
    );
    expect(message).toContain('`podwarden why` and `podwarden silence list` read a read-only database');
    expect(message).not.toContain('create database');
  });

  it.skipIf(how === 'none')(
    'serves `silence list` and `why` from it',
    async () => {
      const list = await runCli(['silence', 'list', '--all', '--config', configPath]);
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      expect(list.stdout).toContain('silence-1\t');
      expect(list.stdout).toContain('\trule=waste\t');
      // It reads the Pods the database knows (none) to say what exists.
      const why = await runCli(['why', 'pod-1', '--config', configPath]);
      expect(why.stderr).toBe('podwarden: why pod-1: no account has seen this Pod; no Pods polled yet\n');
      expect(why.code).toBe(2);
    },
    60_000,
  );
});
