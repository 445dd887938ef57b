import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { measureFile } from '../../bench/file-size.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

describe('measureFile (what bench:db-size projects from)', () => {
  it('counts a primary key’s automatic index with its table, and every other index', () => {
    const sqlite = new BetterSqlite3(join(temp.dir(), 'keys.db'));
    try {
      sqlite.exec(`
        CREATE TABLE keyed (account TEXT, pod_id TEXT, observed_at INTEGER, util REAL, PRIMARY KEY (account, observed_at, pod_id));
        CREATE INDEX keyed_pod_idx ON keyed (pod_id);
        CREATE TABLE compact (account TEXT, pod_id TEXT, observed_at INTEGER, util REAL,
          PRIMARY KEY (account, observed_at, pod_id)) WITHOUT ROWID;`);
      const insert = ['keyed', 'compact'].map((table) => sqlite.prepare(`INSERT INTO ${table} VALUES (?, ?, ?, ?)`));
      sqlite.transaction(() => {
        for (let i = 0; i < 5_000; i++) {
          for (const statement of insert) statement.run('main', `pod-${i % 50}`, T0 + i * MINUTE, i % 100);
        }
      })();
      const { tables } = measureFile(sqlite);
      const pages = (name: string) =>
        sqlite.prepare('SELECT sum(pgsize) FROM dbstat WHERE name = ?').pluck().get(name) as number;

      const keyed = tables.find((t) => t.table === 'keyed');
      expect(keyed?.rows).toBe(5_000);
      expect(keyed?.indexes.sort()).toEqual(['keyed_pod_idx', 'sqlite_autoindex_keyed_1']);
      expect(keyed?.tableBytes).toBe(pages('keyed'));
      expect(keyed?.indexBytes).toBe(pages('sqlite_autoindex_keyed_1') + pages('keyed_pod_idx'));
      // Without its key's index a rowid table would look about half its size (the old bench's mistake).
      expect(pages('sqlite_autoindex_keyed_1')).toBeGreaterThan(0.5 * pages('keyed'));

      const compact = tables.find((t) => t.table === 'compact');
      expect(compact).toMatchObject({ rows: 5_000, indexes: [], indexBytes: 0, tableBytes: pages('compact') });
      expect(compact?.tableBytes).toBeLessThan((keyed?.tableBytes ?? 0) + pages('sqlite_autoindex_keyed_1'));
    } finally {
      sqlite.close();
    }
  });

  it('accounts for every page of a podwarden database: tables, their indexes and SQLite’s own', async () => {
    const database = temp.open();
    const samples: PodSampleInput[] = [];
    for (let minute = 0; minute < 600; minute++) {
      for (const podId of ['pod-a', 'pod-b', 'pod-c']) {
        samples.push({
          podId,
          observedAt: T0 + minute * MINUTE,
          state: 'known',
          uptimeS: minute * 60,
          gpuUtil: [minute % 100, 3],
          gpuMemoryUtil: [40, 41],
          cpuUtil: 12.5,
          memoryUtil: 30,
        });
      }
    }
    await insertPodSamples(database, 'main', samples);
    const size = measureFile(database.sqlite);
    const counted = size.tables.reduce((sum, t) => sum + t.tableBytes + t.indexBytes, 0);
    expect(counted + size.otherBytes).toBe(size.fileBytes);
    // What is left is the schema table (and the freelist): a few pages, never a table's worth.
    const schemaPages = database.sqlite
      .prepare(`SELECT sum(pgsize) FROM dbstat WHERE name = 'sqlite_schema'`)
      .pluck()
      .get() as number;
    const freePages = database.sqlite.pragma('freelist_count', { simple: true }) as number;
    const pageSize = database.sqlite.pragma('page_size', { simple: true }) as number;
    expect(size.otherBytes).toBe(schemaPages + freePages * pageSize);
    expect(size.tables.find((t) => t.table === 'pod_samples')?.rows).toBe(1_800);
  });
});
