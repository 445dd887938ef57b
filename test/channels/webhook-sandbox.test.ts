import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { parseDuration } from '../../src/duration.js';
import { silentLogger } from '../../src/log.js';
import { backtestSummary } from '../../src/messages/backtest-summary.js';
import { replay } from '../../src/replay/replay.js';
import type { ReplayReport } from '../../src/replay/report.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { idleFrom, pod, scenario } from '../actions/idle-world.js';
import { loadVerificationExample, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * A backtest of a file with a webhook pointing at a live receiver: the receiver gets nothing,
 * and the report lists what each destination would have received.
 */
const SECRET = 'webhook-secret-0001-abcdef';
let receiver: WebhookReceiver;
let report: ReplayReport;

beforeAll(async () => {
  const { verify } = await loadVerificationExample();
  receiver = await startWebhookReceiver({ secret: SECRET, verify, now: () => 0 });
  const config = parseConfig(
    {
      accounts: [{ name: 'research', apiKey: 'rpa_research_key_0001' }],
      webhook: {
        destinations: [
          { name: 'ops-bot', url: receiver.url, secret: SECRET },
          { name: 'tickets', url: `${receiver.url}/tickets`, secret: SECRET },
        ],
      },
    },
    { env: {}, baseDir: '/' },
  );
  const played = parseScenario(
    scenario([pod('nb', idleFrom('10m')), pod('train', [{ at: '-2h', gpu: 90, gpuMemory: 80, memory: 50 }])]),
    'webhook-sandbox',
  );
  report = await replay({ scenario: played, config, durationMs: parseDuration('2h'), log: silentLogger() });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
});

describe('simulate --config with a webhook (a backtest)', () => {
  it('never calls the webhook', () => {
    expect(receiver.received).toEqual([]);
  });

  it("lists what the webhook would have received, beside email's messages", () => {
    const webhook = report.channels.webhook;
    expect(webhook?.count).toBeGreaterThan(0);
    expect(webhook?.delivered).toBe(webhook?.count);
    // Until routes name destinations, everything goes to the default one.
    expect(new Set(webhook?.messages.map((message) => message.target))).toEqual(new Set(['ops-bot']));
    expect(webhook?.messages.some((message) => /nb/.test(message.summary) && message.reason === 'first')).toBe(true);
    // The same notices as email, one for one.
    expect(report.channels.email?.count).toBe(report.emails.length);
    expect(webhook?.messages.map((message) => message.summary)).toEqual(report.emails.map((email) => email.subject));
  });

  it('still replays the stop: the warning counts as delivered', () => {
    expect(report.stops.map((stop) => stop.podId)).toEqual(['nb']);
  });

  it('says so in the summary, naming the destinations it left alone', () => {
    const text = backtestSummary(
      { ...report, warnings: [] },
      {
        until: '2h',
        sandboxed: { apiUrls: [], alertmanagerUrls: [], destinations: ['webhook ops-bot', 'webhook tickets'] },
      },
    );
    expect(text).toContain('Not called: webhook ops-bot, webhook tickets.');
    expect(text).toMatch(
      /\nwebhook: \d+ messages? would have been delivered\n {2}Mon 2 Nov, \d\d:\d\d UTC {2}to ops-bot\n/,
    );
  });
});
