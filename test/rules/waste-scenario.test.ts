import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';

/**
 * The waste the bill shows, played by the simulator over HTTP on the virtual clock: Pods billed
 * while they never reach RUNNING, and workers of a scale-to-zero endpoint that stay up idle.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;
const START = Date.parse('2026-11-28T00:00:00Z');
const at = (text: string) => (Date.parse(text) - START) / MINUTE;

let peer: SmtpPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

const catalog = {
  gpus: [
    {
      id: 'NVIDIA H100 80GB HBM3',
      name: 'H100 SXM',
      memory: 80,
      price: { secure: 2.99, community: 2.39 },
    },
    {
      id: 'NVIDIA RTX A5000',
      name: 'RTX A5000',
      memory: 24,
      pool: 'AMPERE_24',
      price: { secure: 0.27, community: 0.16, serverless: 0.69 },
    },
  ],
};

const h100 = { id: 'NVIDIA H100 80GB HBM3', count: 1 };
const busy = [{ at: '0s', gpu: 95, memory: 80 }];

function config(collectors: Parameters<typeof onlyCollectors>[0], email?: Record<string, unknown>) {
  return parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused-key' }],
      collectors: onlyCollectors(collectors),
      ...(email ? { email } : {}),
    },
    { env: {}, baseDir: '/' },
  );
}

const smtpEmail = (port: number) => ({
  host: '127.0.0.1',
  port,
  secure: 'none',
  from: 'podwarden@example.com',
  to: ['ops@example.com'],
});

/** "Paid so far  $1.50" → 1.5: what a mail says a resource has cost. */
const paidSoFar = (body: string) => Number(/Paid so far +\$([\d,]+\.\d\d)/.exec(body)?.[1]?.replace(/,/g, ''));

describe('Pods billed while not reaching RUNNING (podwarden simulate)', () => {
  const scenario = () =>
    parseScenario(
      {
        name: 'stuck-provisioning',
        start: '2026-11-28T00:00:00Z',
        apiKey: 'sim-key',
        catalog,
        pods: [
          // Created at the start and never given a machine (openai/parameter-golf#821).
          {
            id: 'pod-never',
            name: 'never-boots',
            gpu: h100,
            cost: 2.99,
            status: 'PROVISIONING',
            stuck: 'PROVISIONING',
          },
          // Starts as every Pod does: 20 s provisioning, 30 s starting, then RUNNING with a runtime.
          { id: 'pod-boots', name: 'boots', gpu: h100, cost: 2.99, status: 'PROVISIONING', utilization: busy },
          // Ran, was stopped by its owner for two hours, then started again and hangs STARTING.
          {
            id: 'pod-restart',
            name: 'restarted',
            gpu: h100,
            cost: 2.99,
            status: 'RUNNING',
            startedAt: '-1h',
            stuck: 'STARTING',
            utilization: busy,
            events: [
              { at: '20m', action: 'stop' },
              { at: '2h20m', action: 'start' },
            ],
          },
        ],
      },
      'test',
    );

  it('alerts each after stuckStarting with what it cost, not before, and not the Pod that boots', async () => {
    peer = await startSmtp();
    const report = await replay({
      scenario: scenario(),
      config: config(['pods'], smtpEmail(peer.port)),
      durationMs: 4 * HOUR,
      smtp: { host: '127.0.0.1', port: peer.port },
      log: silentLogger(),
    });
    const received = await peer.waitFor(2);
    const waste = report.alerts.filter((alert) => alert.rule === 'waste');
    expect(waste.map((alert) => [alert.key, alert.state])).toEqual([
      ['waste:sim:stuck-starting:pod-never', 'firing'],
      ['waste:sim:stuck-starting:pod-restart', 'firing'],
    ]);
    // The limit is 30 minutes of polls without a runtime: the never-booted Pod's run begins at the
    // first poll (00:00), the restarted one's when it was started again (02:20), not when it last ran.
    const [never, restart] = waste.map((alert) => at(alert.at));
    expect(never).toBeGreaterThanOrEqual(30);
    expect(never).toBeLessThan(32);
    expect(restart).toBeGreaterThanOrEqual(170);
    expect(restart).toBeLessThan(172);
    expect(report.emails.map((mail) => mail.alertKeys)).toEqual([
      ['waste:sim:stuck-starting:pod-never'],
      ['waste:sim:stuck-starting:pod-restart'],
    ]);
    expect(received.map((mail) => mail.subject)).toEqual([
      expect.stringMatching(
        /^\[sim\] Pod never-boots PROVISIONING for 3[01]m( \d+s)?, billed \$2\.99\/h without running$/,
      ),
      expect.stringMatching(/^\[sim\] Pod restarted STARTING for 3[01]m( \d+s)?, billed \$2\.99\/h without running$/),
    ]);
    // What it cost: its $2.99/h from the start of the run to the mail (what the simulator bills).
    const [neverMail, restartMail] = received.map((mail) => mail.body);
    const [neverSent, restartSent] = report.emails.map((mail) => at(mail.at));
    expect(paidSoFar(neverMail ?? '')).toBeCloseTo((2.99 * (neverSent ?? 0)) / 60, 2);
    expect(paidSoFar(restartMail ?? '')).toBeCloseTo((2.99 * ((restartSent ?? 0) - 140)) / 60, 2);
    expect(neverMail).toMatch(/Since +Sat 28 Nov, 00:00 UTC/);
    expect(restartMail).toMatch(/Since +Sat 28 Nov, 02:20 UTC/);
    expect(report.pods).toContainEqual({ id: 'pod-boots', finalStatus: 'RUNNING' });
    expect(report.pods).toContainEqual({ id: 'pod-never', finalStatus: 'PROVISIONING' });
  }, 300_000);
});

describe('scale-to-zero endpoints whose workers keep billing (podwarden simulate)', () => {
  const scenario = () =>
    parseScenario(
      {
        name: 'no-scale-down',
        start: '2026-11-28T00:00:00Z',
        apiKey: 'sim-key',
        catalog,
        endpoints: [
          {
            // One request at 01:00, then its worker never stops (runpod/flash#364).
            id: 'ep-stuck',
            name: 'whisper-stuck',
            gpu: { pools: ['AMPERE_24'] },
            workers: { min: 0, max: 3, idleTimeout: 60 },
            createdAt: '-1d',
            load: [
              { at: '-1d', running: 0, idle: 0 },
              { at: '1h', running: 1, idle: 0 },
              { at: '1h10m', running: 0, idle: 1 },
            ],
          },
          {
            // The same request; its worker stops a minute after it, as min 0 means.
            id: 'ep-scales',
            name: 'whisper-scales',
            gpu: { pools: ['AMPERE_24'] },
            workers: { min: 0, max: 3, idleTimeout: 60 },
            createdAt: '-1d',
            load: [
              { at: '-1d', running: 0, idle: 0 },
              { at: '1h', running: 1, idle: 0 },
              { at: '1h10m', running: 0, idle: 1 },
              { at: '1h11m', running: 0, idle: 0 },
            ],
          },
        ],
      },
      'test',
    );

  it('alerts the endpoint whose idle worker keeps billing, with its billed cost, not the one that scales to zero', async () => {
    const report = await replay({
      scenario: scenario(),
      config: config(['serverless', 'billing']),
      durationMs: 5 * HOUR,
      log: silentLogger(),
    });
    const waste = report.alerts.filter((alert) => alert.rule === 'waste');
    expect(waste.map((alert) => [alert.key, alert.state])).toEqual([['waste:sim:endpoint-idle:ep-stuck', 'firing']]);
    // Billing shows it paying from its 01:00 bucket on (read every 15 minutes); its workers are
    // read from then on, every 5 minutes: idle one hour past its one-minute idle timeout after that.
    const fired = at(waste[0]?.at ?? '');
    expect(fired).toBeGreaterThanOrEqual(75 + 61);
    expect(fired).toBeLessThan(95 + 61);
    expect(report.emails).toEqual([
      expect.objectContaining({
        alertKeys: ['waste:sim:endpoint-idle:ep-stuck'],
        // The worker's $0.69/h as billed since it should have stopped.
        subject: expect.stringMatching(/^\[sim\] Endpoint whisper-stuck: 1 worker idle for over 1h \dm, \$16\.56\/day/),
      }),
    ]);
  }, 300_000);
});
