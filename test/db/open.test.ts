import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DatabaseTooNewError } from '../../src/db/errors.js';
import { openDatabase } from '../../src/db/open.js';
import { packagePath, version } from '../../src/package-root.js';
import { useTempDatabases } from './support.js';

const temp = useTempDatabases();
const journal = JSON.parse(readFileSync(packagePath('migrations/meta/_journal.json'), 'utf8')) as {
  entries: Array<{ tag: string; when: number }>;
};
const allTags = journal.entries.map((entry) => entry.tag);

function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

describe('openDatabase', () => {
  it('creates the parent folders and a file readable by its owner only, WAL included', () => {
    const path = join(temp.dir(), 'nested', 'deeper', 'podwarden.db');
    const database = openDatabase(path, {});
    database.sqlite.exec("INSERT INTO accounts (name, first_seen_at) VALUES ('main', 1)");
    expect(modeOf(path)).toBe(0o600);
    expect(modeOf(`${path}-wal`)).toBe(0o600);
    database.close();
  });

  it('keeps an existing file as it is', () => {
    const first = temp.open();
    first.sqlite.exec("INSERT INTO accounts (name, first_seen_at) VALUES ('main', 1)");
    first.close();
    const again = temp.open();
    expect(again.applied).toEqual([]);
    expect(again.sqlite.prepare('SELECT name FROM accounts').pluck().all()).toEqual(['main']);
  });

  it('sets WAL, a busy timeout, foreign keys and synchronous=NORMAL', () => {
    const { sqlite } = temp.open();
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(1);
  });

  it('applies every migration once and records the schema version and podwarden version', () => {
    const database = temp.open();
    expect(database.applied).toEqual(allTags);
    expect(database.schemaVersion).toBe(allTags.length);
    expect(database.sqlite.prepare('SELECT schema_version, podwarden_version FROM podwarden_meta').get()).toEqual({
      schema_version: allTags.length,
      podwarden_version: version,
    });
    database.close();
    const reopened = temp.open();
    expect(reopened.applied).toEqual([]);
    expect(reopened.schemaVersion).toBe(allTags.length);
  });

  it('applies the package migrations whatever the working directory', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'podwarden-cwd-'));
    try {
      const path = join(elsewhere, 'data', 'podwarden.db');
      const script = `import { openDatabase } from ${JSON.stringify(packagePath('src/db/open.ts'))};
        const database = openDatabase(${JSON.stringify(path)}, {});
        process.stdout.write(JSON.stringify(database.applied));
        database.close();`;
      // tsx by absolute URL: from this working directory the package cannot be found by name.
      const tsx = pathToFileURL(packagePath('node_modules/tsx/dist/loader.mjs')).href;
      const output = execFileSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
        cwd: elsewhere,
        encoding: 'utf8',
      });
      expect(JSON.parse(output)).toEqual(allTags);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('opens :memory: with the whole schema', () => {
    const database = openDatabase(':memory:', {});
    expect(database.applied).toEqual(allTags);
    expect(database.sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'pods'").pluck().get()).toBe(1);
    database.close();
  });

  it('leaves migrations unapplied when told to', () => {
    const database = temp.open('bare.db', { migrate: false });
    expect(database.applied).toEqual([]);
    expect(database.schemaVersion).toBe(0);
    expect(database.sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'pods'").pluck().get()).toBe(0);
  });

  it('rolls back every statement of a transaction that throws', () => {
    const database = temp.open();
    expect(() =>
      database.transaction(() => {
        database.sqlite.exec("INSERT INTO accounts (name, first_seen_at) VALUES ('main', 1)");
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(database.sqlite.prepare('SELECT count(*) FROM accounts').pluck().get()).toBe(0);
  });

  it('nests transactions as savepoints: an inner one that throws undoes only itself', () => {
    const database = temp.open();
    const insert = (name: string) =>
      database.sqlite.prepare('INSERT INTO accounts (name, first_seen_at) VALUES (?, 1)').run(name);
    const names = () => database.sqlite.prepare('SELECT name FROM accounts ORDER BY name').pluck().all();
    const result = database.transaction(() => {
      insert('outer');
      expect(() =>
        database.transaction(() => {
          insert('inner');
          throw new Error('inner boom');
        }),
      ).toThrow('inner boom');
      database.transaction(() => insert('kept'));
      return 'done';
    });
    expect(result).toBe('done');
    expect(names()).toEqual(['kept', 'outer']);
    expect(database.sqlite.inTransaction).toBe(false);
    // The same connection goes on opening transactions afterwards, and an outer failure undoes its inner ones.
    expect(() =>
      database.transaction(() => {
        database.transaction(() => insert('lost'));
        throw new Error('outer boom');
      }),
    ).toThrow('outer boom');
    expect(names()).toEqual(['kept', 'outer']);
  });

  it('names the file when it is not a database', () => {
    const path = join(temp.dir(), 'not-a.db');
    writeFileSync(path, 'this is not SQLite, just some text long enough to fill a header page'.repeat(10));
    expect(() => openDatabase(path, {})).toThrow(`open database ${path}: file is not a database`);
  });
});

describe('a database migrated by a newer podwarden', () => {
  it('is refused when it has a migration this podwarden does not know', () => {
    const database = temp.open();
    const lastWhen = journal.entries.at(-1)?.when ?? 0;
    database.sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('from-the-future', lastWhen + 1000);
    database.sqlite
      .prepare('UPDATE podwarden_meta SET schema_version = ?, podwarden_version = ?')
      .run(allTags.length + 1, '9.0.0');
    database.close();

    let caught: unknown;
    try {
      temp.open();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DatabaseTooNewError);
    const error = caught as DatabaseTooNewError;
    expect(error.databaseSchemaVersion).toBe(allTags.length + 1);
    expect(error.knownSchemaVersion).toBe(allTags.length);
    expect(error.message).toContain('migrated by podwarden 9.0.0 to schema version');
    expect(error.message).toContain('upgrade podwarden');
  });

  it('is refused when podwarden_meta records a newer schema version', () => {
    const database = temp.open();
    database.sqlite.prepare('UPDATE podwarden_meta SET schema_version = ?').run(allTags.length + 3);
    database.close();
    expect(() => temp.open()).toThrow(DatabaseTooNewError);
    expect(() => temp.open('podwarden.db', { migrate: false })).toThrow(DatabaseTooNewError);
  });

  it('is refused by an older podwarden that ships fewer migrations, and left untouched', () => {
    temp.open().close();
    const older = join(temp.dir(), 'older-migrations');
    cpSync(packagePath('migrations'), older, { recursive: true });
    const olderJournal = { ...journal, entries: journal.entries.slice(0, 1) };
    writeFileSync(join(older, 'meta', '_journal.json'), JSON.stringify(olderJournal));

    expect(() => temp.open('podwarden.db', { migrationsFolder: older })).toThrow(
      `migrated by podwarden ${version} to schema version ${allTags.length}, with migrations this podwarden does not know (it knows schema version 1)`,
    );
    const current = temp.open();
    expect(current.schemaVersion).toBe(allTags.length);
  });
});
