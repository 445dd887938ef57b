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
});
