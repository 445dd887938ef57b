import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';

const HOUR = 3_600_000;

let peer: SmtpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

/** One $10/h GPU Pod that has run since the day before; the budget's month starts on the 28th. */
const scenario = () =>
  parseScenario(
    {
      name: 'budget-crossing',
      start: '2026-11-28T00:00:00Z',
      apiKey: 'sim-key',
      catalog: {
        gpus: [
          {
            id: 'NVIDIA H100 80GB HBM3',
            name: 'H100 SXM',
            memory: 80,
            price: { secure: 10, community: 8 },
            availability: 'HIGH',
          },
        ],
      },
      pods: [
        {
          id: 'pod-train',
          name: 'train',
          gpu: { id: 'NVIDIA H100 80GB HBM3', count: 1 },
          cost: 10,
          status: 'RUNNING',
          startedAt: '-1d',
          utilization: [{ at: '-1d', gpu: 95, memory: 80 }],
        },
      ],
    },
    'test',
  );

function config(email: Record<string, unknown> | undefined) {
  return parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused-key' }],
      collectors: onlyCollectors(['billing', 'pods'], { pods: { schedule: '*/5 * * * *' } }),
      budgets: [{ name: 'gpu-month', amount: 100, monthResetDay: 28 }],
      ...(email ? { email } : {}),
    },
    { env: {}, baseDir: '/' },
  );
}

/** `$1,234.56` → 1234.56: the first amount in a subject. */
const firstAmount = (subject: string) => Number(/\$([\d,]+\.\d\d)/.exec(subject)?.[1]?.replace(/,/g, ''));

describe('a monthly budget crossing 50, 80 and 100 % (podwarden simulate)', () => {
  it('sends one email per threshold, each once, with the figures; the forecast comes first', async () => {
    peer = await startSmtp();
    const email = {
      host: '127.0.0.1',
      port: peer.port,
      secure: 'none',
      from: 'podwarden@example.com',
      to: ['finops@example.com'],
    };
    const report = await replay({
      scenario: scenario(),
      config: config(email),
      durationMs: 11 * HOUR,
      smtp: { host: '127.0.0.1', port: peer.port },
      log: silentLogger(),
    });
    const received = await peer.waitFor(4);
    expect(received).toHaveLength(4);
    expect(report.emails.map((e) => [e.at, e.delivered])).toEqual([
      ['2026-11-28T00:01:30Z', true],
      ['2026-11-28T05:00:30Z', true],
      ['2026-11-28T08:00:30Z', true],
      ['2026-11-28T10:00:30Z', true],
    ]);
    expect(received.map((mail) => mail.subject)).toEqual(report.emails.map((e) => e.subject));
    // Each alert is announced by exactly one message; the lower thresholds of a figure are muted
    // while a higher one fires, so the forecast's 50 % and 80 % are never announced.
    expect(received.map((mail) => mail.alertKeys)).toEqual([
      ['budget:all:gpu-month:forecast:100'],
      ['budget:all:gpu-month:spent:50'],
      ['budget:all:gpu-month:spent:80'],
      ['budget:all:gpu-month:spent:100'],
    ]);
    const [forecast, ...spent] = received.map((mail) => mail.subject);
    // 30 days at $10/h ahead of it.
    expect(forecast).toMatch(
      /^\[all accounts\] Budget gpu-month forecast \$7,2\d\d\.\d\d by month's end: 7,?2\d\d% of \$100$/,
    );
    spent.forEach((subject, index) => {
      const threshold = [50, 80, 100][index] as number;
      expect(subject).toMatch(/^\[all accounts\] Budget gpu-month at \d+% \(\$\d+\.\d\d of \$100\), .+ left$/);
      expect(subject.length).toBeLessThanOrEqual(80);
      // Live spend is read every minute: past the threshold by less than a few minutes' spend.
      expect(firstAmount(subject)).toBeGreaterThanOrEqual(threshold);
      expect(firstAmount(subject)).toBeLessThan(threshold + 2.6);
    });
    const body = received[1]?.body ?? '';
    expect(body).toContain('Pod train (pod-train): $50.');
    expect(body).toMatch(/At the current \$10\.00\/h it runs out Sat 28 Nov, (09:5\d|10:0\d) UTC/);
    expect(received.every((mail) => mail.to.join() === 'finops@example.com')).toBe(true);

    const fired = report.alerts.filter((a) => a.state === 'firing').map((a) => a.key.split(':').slice(3).join(':'));
    expect(fired).toEqual(['forecast:50', 'forecast:80', 'forecast:100', 'spent:50', 'spent:80', 'spent:100']);
    expect(report.alerts.every((a) => a.rule === 'budget')).toBe(true);
  }, 300_000);

  it('delivers to an in-process sink when no email host is configured, and lists the emails', async () => {
    const report = await replay({
      scenario: scenario(),
      config: config(undefined),
      durationMs: 2 * HOUR,
      log: silentLogger(),
    });
    expect(report.emails).toEqual([
      {
        at: '2026-11-28T00:01:30Z',
        to: ['you@replay.invalid'],
        subject: expect.stringMatching(/^\[all accounts\] Budget gpu-month forecast \$7,2\d\d\.\d\d by month's end/),
        delivered: true,
        reason: 'first',
        alertKeys: ['budget:all:gpu-month:forecast:100'],
      },
    ]);
  }, 120_000);
});
