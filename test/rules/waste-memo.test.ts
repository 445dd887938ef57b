import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Database } from '../../src/db/open.js';
import { insertWorkerSamples, syncEndpoints } from '../../src/db/serverless.js';
import { wasteFindings } from '../../src/rules/waste.js';
import { wasteMemoCounts } from '../../src/rules/waste-memo.js';
import { endpointInput, endpointSample, useTempDatabases } from '../db/support.js';
import { ACCOUNT, billHourly, DAY, HOUR, historyFrom, pod, storePods, storeVolumes, volume } from './fixtures.js';

const databases = useTempDatabases();
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const MINUTE = 60_000;
const config = parseConfig({ accounts: [{ name: ACCOUNT, apiKey: 'sim-key-0001' }] }, { env: {}, baseDir: '/' });

/** An idle endpoint, an unmounted volume and a stopped Pod with a volume: a finding of each memoized check. */
function world(database: Database): void {
  historyFrom(database, NOW - 30 * DAY, ['pods']);
  syncEndpoints(database, ACCOUNT, [endpointInput('ep-idle')], NOW - DAY);
  const samples = [];
  // Ten hours of samples: the check's 12-hour window passes the oldest only two hours on.
  for (let t = NOW - 10 * HOUR; t <= NOW; t += 5 * MINUTE) samples.push(endpointSample('ep-idle', t));
  insertWorkerSamples(database, ACCOUNT, samples);
  billHourly(database, 'serverless', 'ep-idle', 0.69, NOW - 12 * HOUR, NOW - HOUR);
  storeVolumes(database, [volume({ networkVolumeId: 'vol-never', sizeGb: 200 })], NOW - 20 * DAY);
  storePods(database, [pod({ podId: 'nb', name: 'notebook', status: 'EXITED', volumeGb: 100 })], NOW);
  billHourly(database, 'pods', 'nb', 0.5, NOW - 6 * DAY, NOW - 4 * DAY);
}

describe('waste checks memoized on their inputs', () => {
  it('are not rebuilt while nothing they read changes, yet quote the time and sums of each tick', () => {
    const database = databases.open();
    world(database);
    // A second connection keeps no memo of its own readings: the ground truth of every tick.
    const fresh = databases.open();
    const first = wasteFindings(database, config, NOW);
    expect(first.map((f) => f.labels.check)).toEqual(['endpoint-idle', 'volume-unmounted', 'stopped-pod-volume']);
    const built = wasteMemoCounts(database).built;
    // Until the hour turns (the billed windows move with it), every input stays as it was.
    for (let now = NOW + MINUTE; now < NOW + HOUR; now += MINUTE) {
      const findings = wasteFindings(database, config, now);
      expect(findings).toEqual(wasteFindings(fresh, config, now));
      expect(findings.every((f) => f.details.evaluatedAt === now)).toBe(true);
    }
    expect(wasteMemoCounts(database).built).toBe(built);
    expect(wasteMemoCounts(database).reused).toBeGreaterThanOrEqual(3 * 59);
    // The clock alone moves what is paid so far and how long.
    const later = wasteFindings(database, config, NOW + 59 * MINUTE);
    expect(later[2]?.details.paidSoFar).toBeGreaterThan(first[2]?.details.paidSoFar as number);
    expect(later[0]?.summary).toContain('for 10h,');
    // The hour turns: the billed windows move, the checks read again, and still agree.
    expect(wasteFindings(database, config, NOW + HOUR)).toEqual(wasteFindings(fresh, config, NOW + HOUR));
    expect(wasteMemoCounts(database).built).toBeGreaterThan(built);
  });

  it('are rebuilt when what they read is written, and conclude as a fresh reading does', () => {
    const database = databases.open();
    world(database);
    const fresh = databases.open();
    const check = (now: number) => {
      const before = wasteMemoCounts(database).built;
      const findings = wasteFindings(database, config, now);
      expect(findings).toEqual(wasteFindings(fresh, config, now));
      return { keys: findings.map((f) => f.key), rebuilt: wasteMemoCounts(database).built - before };
    };
    expect(check(NOW).keys).toHaveLength(3);
    expect(check(NOW + MINUTE).rebuilt).toBe(0);
    // The endpoint runs work: no longer idle.
    insertWorkerSamples(database, ACCOUNT, [endpointSample('ep-idle', NOW + 2 * MINUTE, 1)]);
    const busy = check(NOW + 2 * MINUTE);
    expect(busy.rebuilt).toBeGreaterThan(0);
    expect(busy.keys).not.toContain('waste:sim:endpoint-idle:ep-idle');
    // A Pod mounts the volume: no longer unmounted.
    storePods(
      database,
      [
        pod({ podId: 'nb', name: 'notebook', status: 'EXITED', volumeGb: 100 }),
        pod({ podId: 'user', networkVolumeId: 'vol-never' }),
      ],
      NOW + 3 * MINUTE,
    );
    expect(check(NOW + 3 * MINUTE).keys).toEqual(['waste:sim:stopped-pod-volume:nb']);
    // The stopped Pod is billed compute again (it ran an hour ago): stopped for too short now.
    billHourly(database, 'pods', 'nb', 0.5, NOW - 2 * HOUR, NOW - HOUR);
    const billed = check(NOW + 4 * MINUTE);
    expect(billed.rebuilt).toBeGreaterThan(0);
    expect(billed.keys).toEqual([]);
    // Renamed: the finding quotes the new name.
    storePods(
      database,
      [
        pod({ podId: 'nb', name: 'renamed', status: 'EXITED', volumeGb: 100 }),
        pod({ podId: 'user', networkVolumeId: 'vol-never' }),
      ],
      NOW + 5 * MINUTE,
    );
    expect(check(NOW + 3 * DAY).keys).toEqual(['waste:sim:stopped-pod-volume:nb']);
    expect(wasteFindings(database, config, NOW + 3 * DAY)[0]?.summary).toContain('Stopped Pod renamed (nb)');
  });

  it('follow the Pods holding a volume as they go and come back, reading the gone ones only then', () => {
    const database = databases.open();
    const fresh = databases.open();
    const short = parseConfig(
      { accounts: [{ name: ACCOUNT, apiKey: 'sim-key-0001' }], waste: { volumeUnmounted: '1h' } },
      { env: {}, baseDir: '/' },
    );
    storeVolumes(database, [volume({ networkVolumeId: 'vol-a' })], NOW - DAY);
    const holder = pod({ podId: 'p-a', networkVolumeId: 'vol-a' });
    const unmounted = (now: number) => {
      const findings = wasteFindings(database, short, now);
      expect(findings).toEqual(wasteFindings(fresh, short, now));
      return findings.map((f) => f.details.since);
    };
    storePods(database, [holder], NOW - 3 * HOUR);
    expect(unmounted(NOW - 3 * HOUR)).toEqual([]);
    storePods(database, [], NOW - 2 * HOUR);
    // Gone two hours ago: unmounted since then, whatever the minute polls write meanwhile.
    for (let now = NOW - 2 * HOUR + MINUTE; now <= NOW; now += 10 * MINUTE) {
      storePods(database, [pod({ podId: 'other' })], now);
      expect(unmounted(now)).toEqual(now - (NOW - 2 * HOUR) >= HOUR ? [NOW - 2 * HOUR] : []);
    }
    // A poll that changes no Pod holding a volume rebuilds nothing (within the hour).
    unmounted(NOW);
    const built = wasteMemoCounts(database).built;
    storePods(database, [pod({ podId: 'other' })], NOW + MINUTE);
    unmounted(NOW + MINUTE);
    expect(wasteMemoCounts(database).built).toBe(built);
    // Back, then gone again: unmounted from the second time.
    storePods(database, [holder], NOW + 2 * MINUTE);
    expect(unmounted(NOW + 2 * MINUTE)).toEqual([]);
    storePods(database, [], NOW + 3 * MINUTE);
    expect(unmounted(NOW + 2 * HOUR)).toEqual([NOW + 3 * MINUTE]);
  });

  it('are rebuilt after a rollback leaves what they read as it was', () => {
    const database = databases.open();
    world(database);
    const before = wasteFindings(database, config, NOW);
    expect(() =>
      database.transaction(() => {
        storeVolumes(database, [], NOW + MINUTE);
        // Inside the transaction the check reads what it sees, and keeps nothing of it.
        expect(wasteFindings(database, config, NOW + MINUTE).map((f) => f.labels.check)).not.toContain(
          'volume-unmounted',
        );
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(wasteFindings(database, config, NOW)).toEqual(before);
  });
});
