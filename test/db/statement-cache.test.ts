import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/open.js';

describe('drizzle statements kept prepared by text', () => {
  let database: Database | undefined;
  afterEach(() => database?.close());

  it('hands a statement used for raw rows back in object mode', () => {
    database = openDatabase(':memory:');
    const query = sql`SELECT 1 AS one, 'two' AS two`;
    expect(database.db.values(query)).toEqual([[1, 'two']]);
    expect(database.db.all(query)).toEqual([{ one: 1, two: 'two' }]);
    expect(database.db.get(query)).toEqual({ one: 1, two: 'two' });
    expect(database.db.values(query)).toEqual([[1, 'two']]);
  });

  it('runs writes again through the same text, and keeps working past its capacity', () => {
    database = openDatabase(':memory:');
    database.db.run(sql`CREATE TABLE t (n INTEGER)`);
    for (let n = 0; n < 3; n++) database.db.run(sql`INSERT INTO t VALUES (${n})`);
    for (let n = 0; n < 600; n++) expect(database.db.get(sql.raw(`SELECT ${n} AS n`))).toEqual({ n });
    expect(database.db.all(sql`SELECT n FROM t ORDER BY n`)).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });
});
