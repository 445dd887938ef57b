import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';

const run = promisify(execFile);
const script = packagePath('scripts/check-migrations.mjs');
const scratch = mkdtempSync(join(tmpdir(), 'podwarden-db-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function check(migrations?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...(migrations ? [migrations] : [])], {
      cwd: scratch,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('npm run db:check', () => {
  it('passes when migrations/ matches the schema', async () => {
    const result = await check();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/matches src\/db\/schema\.ts \(\d+ migrations\)/);
  });

  it('fails, naming the missing migration, when the schema has changes no migration records', async () => {
    // migrations/ as it was before the last migration that changed the schema was generated (a
    // data-only migration after it, such as 0017's, leaves the schema as it was, so it goes too).
    const older = join(scratch, 'migrations');
    cpSync(packagePath('migrations'), older, { recursive: true });
    const journalPath = join(older, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ idx: number; tag: string }> };
    const snapshotPath = (idx: number) => join(older, 'meta', `${String(idx).padStart(4, '0')}_snapshot.json`);
    const tablesOf = (idx: number) =>
      (JSON.parse(readFileSync(snapshotPath(idx), 'utf8')) as { tables: unknown }).tables;
    for (let changedSchema = false; !changedSchema; ) {
      const last = journal.entries.pop();
      const before = journal.entries.at(-1);
      if (!last || !before) throw new Error('no migration changes the schema');
      // Compared as values: drizzle-kit's custom snapshots may list keys in another order.
      changedSchema = !isDeepStrictEqual(tablesOf(last.idx), tablesOf(before.idx));
      rmSync(join(older, `${last.tag}.sql`));
      rmSync(snapshotPath(last.idx));
    }
    writeFileSync(journalPath, JSON.stringify(journal));

    const result = await check(older);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('src/db/schema.ts has changes that no migration');
    expect(result.stderr).toMatch(/would add {5}\d{4}_unsaved\.sql/);
    expect(result.stderr).toContain('npm run db:generate');
  });
});
