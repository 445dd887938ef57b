import { getTableName } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectors } from '../../src/collectors/index.js';
import type { Database } from '../../src/db/open.js';
import type { Harness } from '../helpers/harness.js';
import { startHarness } from '../helpers/harness.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { calmSmallTeam, HOUR } from './billing-support.js';

/**
 * The table each write statement names (drizzle quotes names, hand-written SQL does not); the
 * `DO UPDATE SET` of an upsert names none.
 */
const WRITE = /\b(?:insert(?:\s+or\s+\w+)?\s+into|(?<!\bdo\s+)update|delete\s+from|replace\s+into)\s+"?(\w+)"?/gi;

function writtenTables(statements: readonly string[]): Set<string> {
  const tables = new Set<string>();
  for (const sql of statements) {
    // A trigger's body is not run through the connection: its writes are added from the schema below.
    if (/^\s*create\s/i.test(sql)) continue;
    for (const match of sql.matchAll(WRITE)) tables.add(match[1] as string);
  }
  return tables;
}

/** Tables written by a trigger on a table, read from the schema: `endpoint_worker_samples` → `endpoint_activity`. */
function triggerWrites(database: Database): Map<string, Set<string>> {
  const triggers = database.sqlite
    .prepare<[], { tbl_name: string; sql: string }>("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'")
    .all();
  const writes = new Map<string, Set<string>>();
  for (const { tbl_name: on, sql } of triggers) {
    const body = sql.slice(sql.search(/\bbegin\b/i));
    for (const table of writtenTables([body])) writes.set(on, (writes.get(on) ?? new Set()).add(table));
  }
  return writes;
}

describe('what each collector declares it feeds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(calmSmallTeam(), (config) => {
      config.collectors.billing.backfillMs = 2 * HOUR;
    });
    // Late enough in the day that every kind of resource exists and has billed.
    await h.clock.advanceTo(h.scenario.startMs + 10 * HOUR);
  }, 60_000);
  afterAll(() => h?.close());

  for (const [name, collector] of collectors) {
    it(`${name}: the tables a run writes are exactly its feeds`, async () => {
      const statements: string[] = [];
      const traced = tracedDatabase(h.dbPath, statements);
      try {
        await h.drive(collector.collect({ ...h.context(), db: traced }));
        const written = writtenTables(statements);
        const byTrigger = triggerWrites(traced);
        for (const table of [...written]) for (const fed of byTrigger.get(table) ?? []) written.add(fed);
        expect([...written].sort()).toEqual(collector.feeds.map((table) => getTableName(table)).sort());
      } finally {
        traced.close();
      }
    });
  }
});
