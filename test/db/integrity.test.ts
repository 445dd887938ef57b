import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseCorruptError } from '../../src/db/errors.js';
import { integrityProblems } from '../../src/db/integrity.js';
import { openDatabase } from '../../src/db/open.js';
import { corruptPage, filledDatabase, useTempDatabases } from './support.js';

const temp = useTempDatabases();

describe('the integrity check at open', () => {
  it('passes an intact database', async () => {
    const path = join(temp.dir(), 'intact.db');
    filledDatabase(path);
    const database = temp.open('intact.db');
    expect(await integrityProblems(database, 'full')).toEqual([]);
  });

  it('refuses a database with a corrupt page, naming the file and what to do', async () => {
    const path = join(temp.dir(), 'corrupt.db');
    filledDatabase(path);
    corruptPage(path);
    let refused: unknown;
    try {
      openDatabase(path).close();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DatabaseCorruptError);
    const message = (refused as Error).message;
    expect(message).toContain(`open database ${path}: the file is damaged (`);
    expect(message).toContain(`sqlite3 ${path} .recover | sqlite3 ${path}.recovered`);
    expect(message).toContain('`podwarden db check` lists every problem');
    // The read-only open checks too, and the full check on demand lists the problems.
    expect(() => openDatabase(path, { readonly: true })).toThrow(DatabaseCorruptError);
    const unchecked = openDatabase(path, { readonly: true, check: false });
    try {
      expect((await integrityProblems(unchecked, 'full')).length).toBeGreaterThan(0);
    } finally {
      unchecked.close();
    }
  });
});
