import { describe, expect, it } from 'vitest';
import type { DataCenterInput } from '../../src/db/catalog.js';
import type { ClusterInput } from '../../src/db/clusters.js';
import { latestRows, trackedRows } from '../../src/db/latest.js';
import type { Database } from '../../src/db/open.js';
import { clusters, dataCenters } from '../../src/db/schema.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { clusterInput, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
// The synchronous bodies of syncClusters and upsertDataCenters: written within one transaction here.
const syncClusters = trackedRows(clusters, 'clusterId');
const upsertDataCenters = latestRows(dataCenters, 'dataCenterId');

function cluster(clusterId: string, running: number): ClusterInput {
  return clusterInput(clusterId, { RUNNING: running });
}

function dataCenter(dataCenterId: string, compliance: string[]): DataCenterInput {
  return {
    dataCenterId,
    name: `dc ${dataCenterId}`,
    region: 'US',
    globalNetwork: false,
    networkVolumeTypes: [],
    compliance,
  };
}

const everything = (database: Database, table: string) =>
  database.sqlite.prepare(`SELECT * FROM ${table} ORDER BY account, 2`).all();

/**
 * A list equal to the last one written only moves last_seen_at (latest.ts keeps what it wrote):
 * the rows must be what a full upsert and sync leave. The reference writes every poll through a
 * connection of its own, which has kept nothing, so it always takes the full path.
 */
describe('a poll whose list is the one last written', () => {
  it('leaves the rows a full write leaves, through changes, repeats, rollbacks and other connections', () => {
    const kept = temp.open('kept.db');
    const reference = temp.dir();
    temp.open('fresh.db').close();
    const random = seededRandom(1207);
    const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
    const lists: ClusterInput[][] = [
      [cluster('c1', 3)],
      [cluster('c1', 3), cluster('c2', 1)],
      [cluster('c2', 1)],
      [cluster('c1', 4), cluster('c2', 1)],
      [],
    ];
    const centers: DataCenterInput[][] = [
      [dataCenter('US-KS-2', ['SOC_2'])],
      [dataCenter('US-KS-2', ['SOC_2']), dataCenter('EU-RO-1', ['GDPR'])],
      [dataCenter('US-KS-2', ['SOC_2', 'GDPR'])],
    ];
    let list = lists[0] as ClusterInput[];
    let centerList = centers[0] as DataCenterInput[];
    for (let step = 0; step < 150; step++) {
      const now = T0 + step * MINUTE;
      const account = pick(['main', 'main', 'main', 'other']);
      // Mostly the same list again, as polls are; sometimes a copy (equal, not the same objects).
      const roll = random();
      if (roll < 0.15) list = pick(lists);
      else if (roll < 0.3) list = list.map((item) => ({ ...item, podsByStatus: { ...item.podsByStatus } }));
      if (random() < 0.15) centerList = pick(centers);
      const unreadable = random() < 0.05 ? { ids: ['c9'], anonymous: false } : undefined;
      const action = random();
      const fresh = temp.open('fresh.db');
      const write = (database: Database) => {
        syncClusters(database, account, list, now, unreadable);
        upsertDataCenters(database, account, centerList, now);
      };
      if (action < 0.1) {
        // A collector's transaction that rolls back after the writes: nothing of it may be kept.
        const boom = (database: Database) =>
          database.transaction(() => {
            write(database);
            throw new Error('rolled back');
          });
        expect(() => boom(kept)).toThrow('rolled back');
        expect(() => boom(fresh)).toThrow('rolled back');
      } else if (action < 0.15) {
        // Another connection (the CLI) changes a row: what was kept must not be trusted.
        for (const path of [`${reference}/kept.db`, `${reference}/fresh.db`]) {
          const other = temp.open(path.endsWith('kept.db') ? 'kept.db' : 'fresh.db');
          other.sqlite.prepare("UPDATE clusters SET name = 'renamed' WHERE account = ?").run(account);
          other.close();
        }
      } else {
        kept.transaction(() => write(kept));
        fresh.transaction(() => write(fresh));
      }
      for (const table of ['clusters', 'data_centers']) {
        expect(everything(kept, table), `${table} after step ${step}`).toEqual(everything(fresh, table));
      }
      fresh.close();
    }
  });
});
