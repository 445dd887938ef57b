import { describe, expect, it } from 'vitest';
import { podSamplesBetween } from '../../src/db/pods.js';
import { MINUTE, migrationsBefore, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const COMPACT = '0011_compact_samples';

describe(`migration ${COMPACT}`, () => {
  it('converts stored samples and rollups into the compact tables without losing a figure', async () => {
    const old = temp.open('upgrade.db', { migrationsFolder: migrationsBefore(temp.dir(), COMPACT) });
    const insert = old.sqlite.prepare(
      `INSERT INTO pod_samples (account, pod_id, observed_at, state, uptime_s, gpu_util, gpu_memory_util,
         max_gpu_util, max_gpu_memory_util, cpu_util, memory_util) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run('main', 'one-gpu', T0, 'known', 60, '[37]', '[12]', 37, 12, 5, 20);
    insert.run('main', 'two-gpus', T0, 'known', 60, '[0,88]', '[5,70]', 88, 70, 5.5, 20);
    insert.run('main', 'cpu-only', T0 + MINUTE, 'known', 60, '[]', '[]', null, null, 5, 20);
    insert.run('main', 'lost', T0 + MINUTE, 'unknown', null, null, null, null, null, null, null);
    insert.run('other', 'one-gpu', T0, 'known', 1, '[1]', '[2]', 1, 2, 3, 4);
    const rollup = [T0, 5, 1, 12.5, 40, 30, 31, 5, 6, 20, 21];
    for (const table of ['pod_samples_5m', 'pod_samples_1h']) {
      old.sqlite
        .prepare(
          `INSERT INTO ${table} (account, pod_id, bucket_start_at, known_count, unknown_count, avg_gpu_util,
             max_gpu_util, avg_gpu_memory_util, max_gpu_memory_util, avg_cpu_util, max_cpu_util, avg_memory_util,
             max_memory_util) VALUES ('main', 'one-gpu', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...rollup);
    }
    const before = podSamplesBeforeMigration(old.sqlite);
    old.close();

    const upgraded = temp.open('upgrade.db');
    expect(await podSamplesBetween(upgraded, 'main', T0, T0 + MINUTE)).toEqual(before.main);
    expect(await podSamplesBetween(upgraded, 'other', T0, T0)).toEqual(before.other);
    for (const table of ['pod_samples_5m', 'pod_samples_1h']) {
      expect(
        upgraded.sqlite
          .prepare(
            `SELECT bucket_start_at, known_count, unknown_count, avg_gpu_util, max_gpu_util, avg_gpu_memory_util,
               max_gpu_memory_util, avg_cpu_util, max_cpu_util, avg_memory_util, max_memory_util FROM ${table}`,
          )
          .raw()
          .all(),
      ).toEqual([rollup]);
    }
    const withoutRowid = upgraded.sqlite
      .prepare(`SELECT name FROM sqlite_schema WHERE name LIKE 'pod_samples%' AND sql LIKE '%WITHOUT ROWID'`)
      .pluck()
      .all();
    expect(withoutRowid.sort()).toEqual(['pod_samples', 'pod_samples_1h', 'pod_samples_5m']);
    // No index beside the tables: each is its own primary key.
    expect(
      upgraded.sqlite
        .prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name LIKE 'pod_samples%'`)
        .all(),
    ).toEqual([]);
  });
});

/** The samples as the old schema holds them, in the shape podSamplesBetween returns. */
function podSamplesBeforeMigration(sqlite: import('better-sqlite3').Database) {
  const rows = sqlite
    .prepare(
      `SELECT account, pod_id AS podId, observed_at AS observedAt, state, uptime_s AS uptimeS, gpu_util AS gpuUtil,
         gpu_memory_util AS gpuMemoryUtil, max_gpu_util AS maxGpuUtil, max_gpu_memory_util AS maxGpuMemoryUtil,
         cpu_util AS cpuUtil, memory_util AS memoryUtil
       FROM pod_samples ORDER BY account, observed_at, pod_id`,
    )
    .all() as Array<
    Record<string, unknown> & { account: string; gpuUtil: string | null; gpuMemoryUtil: string | null }
  >;
  const parsed = rows.map((row) => ({
    ...row,
    gpuUtil: row.gpuUtil === null ? null : JSON.parse(row.gpuUtil),
    gpuMemoryUtil: row.gpuMemoryUtil === null ? null : JSON.parse(row.gpuMemoryUtil),
  }));
  return {
    main: parsed.filter((row) => row.account === 'main'),
    other: parsed.filter((row) => row.account === 'other'),
  };
}
