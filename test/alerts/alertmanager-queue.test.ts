import { afterEach, describe, expect, it } from 'vitest';
import { queueForAlertmanager } from '../../src/channels/alertmanager.js';
import { hasOpenDeliveries } from '../../src/db/alertmanager-outbox.js';
import { rowsOf } from '../helpers/store.js';
import { type AlertBench, alertBench, finding, MINUTE } from './support.js';

/**
 * The queue step without a live Alertmanager (the delivery tests need one): rows follow the
 * configured URLs, and without any URL a tick with no row left open does nothing.
 */
const benches: AlertBench[] = [];
afterEach(() => {
  for (const bench of benches.splice(0)) bench.close();
});

describe('queueing for Alertmanager', () => {
  it('closes the rows of a URL no longer configured, and then has nothing open to close', async () => {
    const bench = alertBench((config) => {
      config.alerts.alertmanager = {
        urls: ['http://127.0.0.1:9/'],
        timeoutMs: 1_000,
        resendIntervalMs: 10 * MINUTE,
        runbookUrls: {},
      };
    });
    benches.push(bench);
    await bench.tick([finding('waste:sim:volume-unmounted:vol-1')]);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => row.finishedAt)).toEqual([null]);
    expect(await hasOpenDeliveries(bench.db)).toBe(true);
    bench.config.alerts.alertmanager = undefined;
    await queueForAlertmanager(bench.db, bench.config, bench.clock.now() + MINUTE);
    expect((await rowsOf(bench.db, ['alertmanager'])).map((row) => [row.finishedAt, row.lastError])).toEqual([
      [bench.clock.now() + MINUTE, 'closed: URL no longer configured'],
    ]);
    expect(await hasOpenDeliveries(bench.db)).toBe(false);
  });

  it('queues only what alerts.routes sends to Alertmanager, by label, and closes a row whose alert no route sends there any more', async () => {
    const bench = alertBench((config) => {
      config.alerts.alertmanager = {
        urls: ['http://127.0.0.1:9/'],
        timeoutMs: 1_000,
        resendIntervalMs: 10 * MINUTE,
        runbookUrls: {},
      };
      config.owners.contacts = { ml: { email: ['ml-lead@example.com'] } };
      config.alerts.routes = [
        { match: { team: 'ml' }, to: { email: ['team'], alertmanager: true } },
        { match: { rule: 'waste' }, to: { email: ['ops@example.com'] } },
      ];
    });
    benches.push(bench);
    const labelled = (key: string, team?: string) =>
      finding(key, { labels: { rule: 'waste', account: 'sim', ...(team ? { team } : {}) } });
    await bench.tick([labelled('waste:sim:a', 'ml'), labelled('waste:sim:b', 'vision'), labelled('waste:sim:c')]);
    const queued = async () =>
      (await rowsOf(bench.db, ['alertmanager'])).map((row) => [row.alertKeys, row.finishedAt === null]);
    expect(await queued()).toEqual([[['waste:sim:a'], true]]);
    // The team's route no longer takes alerts to Alertmanager: its row is closed, not left
    // resending; the others, now matched by no route, go by default to every configured channel.
    bench.config.alerts.routes = [{ match: { team: 'ml' }, to: { email: ['team'] } }];
    await queueForAlertmanager(bench.db, bench.config, bench.clock.now() + MINUTE);
    expect(await queued()).toEqual([
      [['waste:sim:a'], false],
      [['waste:sim:b'], true],
      [['waste:sim:c'], true],
    ]);
  });
});
