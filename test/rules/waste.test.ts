import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import type { Database } from '../../src/db/open.js';
import { insertPodSamples } from '../../src/db/pods.js';
import { wasteFindings as wasteRule } from '../../src/rules/waste.js';
import { readSnapshots } from '../../src/tick/run.js';

/** The waste rule on a snapshot of the database at `now`, as a tick reads it. */
async function wasteFindings(database: Database, config: Config, now: number) {
  return wasteRule(await readSnapshots(database, { config }, now), config, now);
}

import { endpointInput, useTempDatabases } from '../db/support.js';
import { insertWorkerSamples, syncEndpoints } from '../helpers/store.js';
import { ACCOUNT, billHourly, DAY, HOUR, historyFrom, pod, storePods, storeVolumes, volume } from './fixtures.js';

const databases = useTempDatabases();
const NOW = Date.UTC(2026, 10, 20, 12, 0, 0);
const MINUTE = 60_000;

function config(waste: Record<string, unknown> = {}): Config {
  return parseConfig({ accounts: [{ name: ACCOUNT, apiKey: 'sim-key-0001' }], waste }, { env: {}, baseDir: '/' });
}

const summary = (observedAt: number, running: number, idle: number) => ({
  observedAt,
  running,
  idle,
  initializing: 0,
  throttled: 0,
  unhealthy: 0,
  total: running + idle,
});

describe('waste', () => {
  it('finds endpoints whose minimum workers have had no work for hours, with their cost per day', async () => {
    const database = databases.open();
    await syncEndpoints(
      database,
      ACCOUNT,
      [endpointInput('ep-idle'), endpointInput('ep-busy'), endpointInput('ep-zero', 0)],
      NOW - DAY,
    );
    const samples = [];
    for (let t = NOW - 12 * HOUR; t <= NOW; t += 5 * MINUTE) {
      samples.push({ endpointId: 'ep-idle', ...summary(t, 0, 1) });
      samples.push({ endpointId: 'ep-busy', ...summary(t, t > NOW - 2 * HOUR && t < NOW - HOUR ? 1 : 0, 1) });
      samples.push({ endpointId: 'ep-zero', ...summary(t, 0, 1) });
    }
    for (const { endpointId, ...sample } of samples)
      await insertWorkerSamples(database, ACCOUNT, [{ endpointId, ...sample }]);
    await billHourly(database, 'serverless', 'ep-idle', 0.69, NOW - 12 * HOUR, NOW);
    const findings = await wasteFindings(database, config(), NOW);
    expect(findings.map((f) => [f.key, f.summary])).toEqual([
      [
        'waste:sim:endpoint-idle:ep-idle',
        'Endpoint ep-idle-name (ep-idle): 1 worker up with no work for 12h, $16.56/day',
      ],
    ]);
    expect(findings[0]?.labels).toEqual({
      rule: 'waste',
      account: 'sim',
      check: 'endpoint-idle',
      endpoint_id: 'ep-idle',
    });
    expect(findings[0]?.details.costPerDay).toBe(16.56);
  });

  it('finds scale-to-zero endpoints whose workers stay up billed with no work past their idle timeout', async () => {
    const database = databases.open();
    const endpoints = ['ep-stuck', 'ep-young', 'ep-stale', 'ep-unbilled'].map((id) => endpointInput(id, 0));
    const young = endpoints[1];
    if (young) young.idleTimeoutS = 3600;
    await syncEndpoints(database, ACCOUNT, endpoints, NOW - DAY);
    // Read every 5 minutes over the last 70 minutes (since billing showed them paying); ep-stale
    // no longer read for 40 minutes (its billing stopped), ep-unbilled never billed.
    for (let t = NOW - 70 * MINUTE; t <= NOW; t += 5 * MINUTE) {
      const ids =
        t <= NOW - 40 * MINUTE
          ? ['ep-stuck', 'ep-young', 'ep-stale', 'ep-unbilled']
          : ['ep-stuck', 'ep-young', 'ep-unbilled'];
      await insertWorkerSamples(
        database,
        ACCOUNT,
        ids.map((endpointId) => ({ endpointId, ...summary(t, 0, 1) })),
      );
    }
    for (const id of ['ep-stuck', 'ep-young', 'ep-stale']) {
      await billHourly(database, 'serverless', id, 0.69, NOW - 2 * HOUR, NOW);
    }
    const findings = await wasteFindings(database, config(), NOW);
    // ep-young may idle its one-hour idle timeout first: 70 minutes is not 1h past it.
    expect(findings.map((f) => [f.key, f.summary])).toEqual([
      [
        'waste:sim:endpoint-idle:ep-stuck',
        'Endpoint ep-stuck-name (ep-stuck) does not scale to zero: 1 worker up with no work for 1h (workers.min 0), $16.56/day',
      ],
    ]);
    expect(findings[0]?.details).toMatchObject({
      workersMin: 0,
      workersUp: 1,
      sinceIsLowerBound: true,
      costPerDay: 16.56,
    });
    // With the limit at 2h, none yet.
    expect(await wasteFindings(database, config({ endpointScaleDown: '2h' }), NOW)).toEqual([]);
  });

  it('finds network volumes no Pod has mounted for days, with their cost per month', async () => {
    const database = databases.open();
    await storeVolumes(
      database,
      [
        volume({ networkVolumeId: 'vol-left', name: 'old-data', sizeGb: 500 }),
        volume({ networkVolumeId: 'vol-used' }),
        volume({ networkVolumeId: 'vol-never', sizeGb: 1_500 }),
      ],
      NOW - 20 * DAY,
    );
    // vol-left's Pod went away 8 days ago; vol-used is mounted by a live Pod.
    await storePods(database, [pod({ podId: 'p-old', networkVolumeId: 'vol-left' })], NOW - 9 * DAY);
    await storePods(database, [], NOW - 8 * DAY);
    await storePods(database, [pod({ podId: 'p-live', status: 'EXITED', networkVolumeId: 'vol-used' })], NOW);
    await storeVolumes(
      database,
      [
        volume({ networkVolumeId: 'vol-left', name: 'old-data', sizeGb: 500 }),
        volume({ networkVolumeId: 'vol-used' }),
        volume({ networkVolumeId: 'vol-never', sizeGb: 1_500 }),
        volume({ networkVolumeId: 'vol-new' }),
      ],
      NOW,
    );
    // Billing knows vol-left's rate: 500 GB at $0.07/GB-month is $35 a month.
    await billHourly(database, 'network_volumes', 'vol-left', 35 / 730, NOW - DAY, NOW - HOUR, 'standardAmount');
    const findings = await wasteFindings(database, config(), NOW);
    expect(findings.map((f) => f.summary)).toEqual([
      'Network volume old-data (vol-left, 500 GB): no Pod has mounted it for 8d, $35.00/month',
      // Never billed: the published price, $0.07/GB for 1,000 GB and $0.05 beyond.
      'Network volume vol-never (vol-never, 1500 GB): no Pod has mounted it for 20d, $95.00/month',
    ]);
  });

  it('finds stopped Pods paying for their volume for days, with what they paid', async () => {
    const database = databases.open();
    await historyFrom(database, NOW - 30 * DAY, ['pods']);
    await storePods(
      database,
      [
        pod({ podId: 'nb-old', name: 'notebook', status: 'EXITED', volumeGb: 100 }),
        pod({ podId: 'nb-recent', status: 'EXITED', volumeGb: 100 }),
        pod({ podId: 'nb-nodisk', status: 'EXITED', volumeGb: 0 }),
        pod({ podId: 'nb-ancient', name: 'archive', status: 'EXITED', volumeGb: 100 }),
        pod({ podId: 'running', status: 'RUNNING', volumeGb: 100, costPerHr: 1 }),
      ],
      NOW,
    );
    await billHourly(database, 'pods', 'nb-old', 0.5, NOW - 6 * DAY, NOW - 4 * DAY);
    await billHourly(database, 'pods', 'nb-recent', 0.5, NOW - 2 * DAY, NOW - DAY);
    await billHourly(database, 'pods', 'nb-ancient', 0.5, NOW - 12 * DAY, NOW - 10 * DAY);
    const findings = await wasteFindings(database, config(), NOW);
    expect(findings.map((f) => f.summary)).toEqual([
      // No compute found within twice the threshold: stopped for longer than that.
      'Stopped Pod archive (nb-ancient) has paid for its 100 GB volume for over 6d: $0.66/day, at least $3.95 so far',
      'Stopped Pod notebook (nb-old) has paid for its 100 GB volume for 4d: $0.66/day, $2.63 so far',
    ]);
    // With a shorter threshold the recent one counts too.
    expect((await wasteFindings(database, config({ stoppedPodVolume: '12h' }), NOW)).map((f) => f.key)).toEqual([
      'waste:sim:stopped-pod-volume:nb-ancient',
      'waste:sim:stopped-pod-volume:nb-old',
      'waste:sim:stopped-pod-volume:nb-recent',
    ]);
  });

  it('finds RUNNING Pods that report no runtime for long, and not those that do or just started', async () => {
    const database = databases.open();
    await storePods(
      database,
      [
        pod({ podId: 'stuck', costPerHr: 2.99, startedAt: NOW - 50 * MINUTE }),
        pod({ podId: 'healthy', costPerHr: 2.99, startedAt: NOW - 50 * MINUTE }),
        pod({ podId: 'fresh', costPerHr: 2.99, startedAt: NOW - 10 * MINUTE }),
      ],
      NOW,
    );
    const unknown = (podId: string, observedAt: number) => ({
      podId,
      observedAt,
      state: 'unknown' as const,
      uptimeS: null,
      gpuUtil: null,
      gpuMemoryUtil: null,
      cpuUtil: null,
      memoryUtil: null,
    });
    const samples = [];
    for (let t = NOW - 50 * MINUTE; t <= NOW; t += MINUTE) {
      samples.push(unknown('stuck', t));
      samples.push({
        ...unknown('healthy', t),
        state: 'known' as const,
        uptimeS: 60,
        gpuUtil: [90],
        gpuMemoryUtil: [50],
      });
      if (t >= NOW - 10 * MINUTE) samples.push(unknown('fresh', t));
    }
    await insertPodSamples(database, ACCOUNT, samples);
    const findings = await wasteFindings(database, config(), NOW);
    expect(findings.map((f) => f.summary)).toEqual([
      'Pod stuck (stuck) RUNNING with no runtime data for 50m (stuck starting?): $2.99/h, $2.49 so far',
    ]);
  });

  it('follows the samples that land between ticks, and a Pod that starts reporting its runtime', async () => {
    const database = databases.open();
    await storePods(
      database,
      [
        pod({ podId: 'slow', costPerHr: 1.5, startedAt: NOW - 60 * MINUTE }),
        pod({ podId: 'late', costPerHr: 1.5, startedAt: NOW - 60 * MINUTE }),
      ],
      NOW,
    );
    const sample = (podId: string, observedAt: number, known: boolean) => ({
      podId,
      observedAt,
      state: known ? ('known' as const) : ('unknown' as const),
      uptimeS: known ? 60 : null,
      gpuUtil: known ? [90] : null,
      gpuMemoryUtil: known ? [50] : null,
      cpuUtil: null,
      memoryUtil: null,
    });
    const land = async (from: number, to: number, lateKnownFrom: number) => {
      const samples = [];
      for (let t = from; t <= to; t += MINUTE) {
        samples.push(sample('slow', t, false), sample('late', t, t >= lateKnownFrom));
      }
      await insertPodSamples(database, ACCOUNT, samples);
    };
    const stuck = async (now: number) => (await wasteFindings(database, config(), now)).map((f) => f.key);
    // Both without runtime for 20 minutes: not yet stuck (the threshold is 30 minutes).
    land(NOW - 60 * MINUTE, NOW - 40 * MINUTE, Number.POSITIVE_INFINITY);
    expect(await stuck(NOW - 40 * MINUTE)).toEqual([]);
    // 35 minutes on, both are; then 'late' starts reporting its runtime and is not any more.
    land(NOW - 39 * MINUTE, NOW - 25 * MINUTE, Number.POSITIVE_INFINITY);
    expect(await stuck(NOW - 25 * MINUTE)).toEqual(['waste:sim:stuck-starting:late', 'waste:sim:stuck-starting:slow']);
    land(NOW - 24 * MINUTE, NOW, NOW - 5 * MINUTE);
    expect(await stuck(NOW)).toEqual(['waste:sim:stuck-starting:slow']);
  });

  it('finds nothing when turned off', async () => {
    const database = databases.open();
    await storeVolumes(database, [volume({ networkVolumeId: 'vol-1' })], NOW - 30 * DAY);
    expect(await wasteFindings(database, config(), NOW)).toHaveLength(1);
    expect(await wasteFindings(database, config({ enabled: false }), NOW)).toEqual([]);
  });
});
