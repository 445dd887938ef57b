import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { GpuAvailabilityRecord } from '../../src/db/catalog.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { latestCrossing, latestPriceMove } from '../../src/rules/capacity.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';

const HOUR = 3_600_000;

let peer: SmtpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const row = (
  sinceAt: number,
  availability: string | null,
  priceSecure: number | null = null,
): GpuAvailabilityRecord => ({
  account: 'sim',
  gpuTypeId: 'NVIDIA H200',
  product: 'POD',
  dataCenterId: '',
  availability,
  priceSecure,
  priceCommunity: null,
  priceServerless: null,
  maxCountSecure: null,
  maxCountCommunity: null,
  sinceAt,
  lastSeenAt: sinceAt,
});

describe('latestCrossing', () => {
  it('is the last move into or out of the wanted levels; moves inside them and unknowns are not', () => {
    const history = [row(0, 'NONE'), row(1, null), row(2, 'LOW'), row(3, 'HIGH'), row(4, 'MEDIUM')];
    expect(latestCrossing(history, ['LOW', 'MEDIUM', 'HIGH'])).toEqual({
      event: 'rise',
      from: 'NONE',
      to: 'LOW',
      at: 2,
    });
    expect(latestCrossing(history, ['HIGH'])).toEqual({ event: 'fall', from: 'HIGH', to: 'MEDIUM', at: 4 });
    expect(latestCrossing(history.slice(0, 2), ['HIGH'])).toBeNull();
  });
});

describe('latestPriceMove', () => {
  it('reports the latest price change when it moved by at least the fraction', () => {
    const history = [row(0, 'HIGH', 3.0), row(1, 'HIGH', 2.9), row(2, 'LOW', 2.9), row(3, 'LOW', 2.5)];
    expect(latestPriceMove(history, 0.1)).toEqual({ cloud: 'secure', from: 2.9, to: 2.5, at: 3 });
    expect(latestPriceMove(history, 0.2)).toBeNull();
  });
});

describe('capacity alerts (podwarden simulate)', () => {
  it('alerts on crossings as configured, once each, not on every catalog poll', async () => {
    peer = await startSmtp();
    const scenario = parseScenario(
      {
        name: 'h200-comes-back',
        start: '2026-11-02T00:00:00Z',
        apiKey: 'sim-key',
        catalog: {
          gpus: [
            {
              id: 'NVIDIA H200',
              name: 'H200 SXM',
              memory: 141,
              price: { secure: 3.99, community: 3.59 },
              availability: [
                { at: '0s', value: 'NONE' },
                { at: '1h', value: 'LOW' },
                { at: '2h', value: 'HIGH' },
                { at: '3h', value: 'NONE' },
              ],
            },
          ],
          dataCenters: [
            { id: 'US-KS-2', name: 'US Kansas 2' },
            { id: 'EU-RO-1', name: 'EU Romania 1' },
          ],
        },
      },
      'test',
    );
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['catalog']),
        capacity: {
          watch: [
            { gpuTypeId: 'NVIDIA H200', alertOn: ['rise', 'fall'] },
            { name: 'H200 SXM', dataCenters: ['US-KS-2'], levels: ['HIGH'] },
          ],
        },
        email: {
          host: '127.0.0.1',
          port: peer.port,
          secure: 'none',
          from: 'podwarden@example.com',
          to: ['ml@example.com'],
        },
      },
      { env: {}, baseDir: '/' },
    );
    const report = await replay({
      scenario,
      config,
      durationMs: 4 * HOUR,
      smtp: { host: '127.0.0.1', port: peer.port },
      log: silentLogger(),
    });
    const rise = 'capacity:sim:NVIDIA H200:POD:all:rise@';
    expect(report.alerts.map((a) => [a.at, a.state, a.key.replace(/@\d+$/, '@')])).toEqual([
      ['2026-11-02T01:00:30Z', 'firing', rise],
      ['2026-11-02T02:00:30Z', 'firing', 'capacity:sim:NVIDIA H200:POD:US-KS-2:rise@'],
      ['2026-11-02T03:00:30Z', 'resolved', rise],
      ['2026-11-02T03:00:30Z', 'resolved', 'capacity:sim:NVIDIA H200:POD:US-KS-2:rise@'],
      ['2026-11-02T03:00:30Z', 'firing', 'capacity:sim:NVIDIA H200:POD:all:fall@'],
    ]);
    expect(report.emails.map((e) => [e.at, e.subject, e.delivered])).toEqual([
      ['2026-11-02T01:01:30Z', '[sim] H200 SXM is back: NONE → LOW across data centers', true],
      ['2026-11-02T02:00:30Z', '[sim] H200 SXM is back: LOW → HIGH in US-KS-2', true],
      ['2026-11-02T03:00:30Z', '[sim] H200 SXM is running out: HIGH → NONE across data centers', true],
    ]);
    const received = await peer.waitFor(3);
    expect(received.map((mail) => mail.subject)).toEqual(report.emails.map((e) => e.subject));
    expect(received.every((mail) => mail.to.join() === 'ml@example.com')).toBe(true);
    // Each says what a GPU costs and where (the body is quoted-printable: lines may break at "=").
    for (const mail of received) {
      const body = mail.body.replace(/=\r?\n/g, '');
      expect(body).toMatch(/a GPU costs \$\d+\.\d\d\/h secure cloud/);
      expect(body).toMatch(/Data center +(US-KS-2|all data centers together)/);
    }
  }, 120_000);
});
