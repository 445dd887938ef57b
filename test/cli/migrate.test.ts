import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';
import { runCli } from '../helpers/cli.js';

const tags = (
  JSON.parse(readFileSync(packagePath('migrations/meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> }
).entries.map((entry) => entry.tag);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-migrate-'));
  // A relative database path resolves against the config file's folder, not the working directory.
  writeFileSync(
    join(dir, 'podwarden.yaml'),
    'accounts:\n  - name: main\n    apiKey: test-key-123\ndatabase:\n  path: ./state/podwarden.db\nlog:\n  format: json\n',
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('podwarden migrate', () => {
  it('creates the database, prints each migration applied, then finds it up to date', async () => {
    const database = join(dir, 'state', 'podwarden.db');
    const first = await runCli(['migrate', '--config', join(dir, 'podwarden.yaml')]);
    expect(first.stderr).not.toContain('podwarden:');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `${tags.map((tag) => `applied ${tag}\n`).join('')}database ${database}: now at schema version ${tags.length}\n`,
    );
    expect(statSync(database).mode & 0o777).toBe(0o600);

    const second = await runCli(['migrate'], { env: { PODWARDEN_CONFIG: join(dir, 'podwarden.yaml') } });
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`database ${database}: up to date at schema version ${tags.length}\n`);
  });

  it('refuses a database migrated by a newer podwarden and exits 1', async () => {
    const config = join(dir, 'podwarden.yaml');
    expect((await runCli(['migrate', '--config', config])).code).toBe(0);
    const sqlite = new BetterSqlite3(join(dir, 'state', 'podwarden.db'));
    sqlite.prepare("UPDATE podwarden_meta SET schema_version = 99, podwarden_version = '7.0.0'").run();
    sqlite.close();

    const result = await runCli(['migrate', '--config', config]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      `podwarden: open database ${join(dir, 'state', 'podwarden.db')}: it was migrated by podwarden 7.0.0 to schema version 99`,
    );
  });

  it('exits 2 on a configuration problem, before touching any database', async () => {
    writeFileSync(join(dir, 'bad.yaml'), 'accounts: []\ndatabase:\n  path: ./never.db\n');
    const result = await runCli(['migrate', '--config', join(dir, 'bad.yaml')]);
    expect(result.code).toBe(2);
    expect(() => statSync(join(dir, 'never.db'))).toThrow();
  });
});
