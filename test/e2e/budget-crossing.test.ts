import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';

/**
 * A daily budget crossed by one busy Pod: billing lags the live figure by up to an hour, so the
 * live and billed figures cross each threshold at different times. Each threshold is announced
 * once, in one mail that gives both figures, and "over by" is what was spent less the amount.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const START = Date.UTC(2026, 10, 2, 0, 0, 0);

const scenario = () =>
  parseScenario(
    {
      name: 'daily-budget',
      start: '2026-11-02T00:00:00Z',
      apiKey: 'sim-key',
      catalog: {
        gpus: [
          {
            id: 'NVIDIA H100 80GB HBM3',
            name: 'H100 SXM',
            memory: 80,
            price: { secure: 2.99, community: 2.39 },
            availability: 'HIGH',
          },
        ],
      },
      pods: [
        {
          id: 'train',
          name: 'llama-finetune',
          gpu: { id: 'NVIDIA H100 80GB HBM3', count: 2 },
          cost: 5.98,
          status: 'RUNNING',
          startedAt: '-1h',
          utilization: [{ at: '0s', gpu: 95, memory: 80 }],
        },
      ],
    },
    'daily-budget',
  );

let peer: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The plain-text part of a received message, its quoted-printable encoding undone. */
function plainText(body: string): string {
  const part = body.slice(body.indexOf('Content-Type: text/plain'), body.indexOf('Content-Type: text/html'));
  const bytes = part
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** "$60.75" → 60.75 */
const dollars = (text: string) => Number(text.replace(/[$,]/g, ''));

describe('a daily budget crossed in a replay', () => {
  it('mails each threshold once, with the billed and the live figure, and over-by adds up', async () => {
    const clock = new VirtualClock(START);
    peer = await startSmtp();
    dir = mkdtempSync(join(tmpdir(), 'podwarden-budget-'));
    const config = parseConfig(
      {
        accounts: [{ name: 'prod', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['billing', 'catalog', 'pods', 'stock']),
        budgets: [{ name: 'gpu-daily', amount: 50, period: 'day', figures: ['actual', 'live'] }],
        email: { host: '127.0.0.1', port: 25, from: 'podwarden@example.com', to: ['ops@example.com'] },
      },
      { env: {}, baseDir: '/' },
    );
    const report = await replay({
      scenario: scenario(),
      config,
      durationMs: 12 * HOUR,
      clock,
      smtp: { host: '127.0.0.1', port: peer.port },
      dbPath: join(dir, 'podwarden.db'),
      log: silentLogger(),
    });
    const budgetMails = peer.received.filter((mail) => mail.alertKeys.some((key) => key.startsWith('budget:')));
    const log = report.emails
      .filter((e) => e.alertKeys.some((key) => key.startsWith('budget:')))
      .map((e) => `${e.at} ${e.reason} ${e.alertKeys.join(',')} | ${e.subject}`);
    console.info(log.join('\n'));

    // One firing mail per threshold of the budget, none for the other figure's crossing.
    const firing = report.emails.filter(
      (e) => e.alertKeys.some((key) => key.startsWith('budget:')) && !e.reason.includes('resolved'),
    );
    const thresholdsAnnounced = firing.map((e) => e.alertKeys.map((key) => key.split(':').at(-1)).join(','));
    expect(thresholdsAnnounced, log.join('\n')).toEqual(['50', '80', '100']);
    expect(budgetMails).toHaveLength(3);

    const texts = budgetMails.map((mail) => plainText(mail.body));
    for (const text of texts) {
      // Both figures, each named, in every budget mail, and they add up.
      const [, live, billed, unbilled] =
        /reached (\$[\d,.]+), \d+% of its \$50 for [\d-]+: (\$[\d,.]+) billed and (\$[\d,.]+) not yet billed/.exec(
          text,
        ) ?? [];
      expect(live, text).toBeDefined();
      expect(dollars(billed ?? '') + dollars(unbilled ?? '')).toBeCloseTo(dollars(live ?? ''), 2);
      expect(text).toMatch(/Billed so far +\$/);
      expect(text).toMatch(/Billed and not yet billed +\$/);
    }
    // "over by" is the named figure less the amount, to the cent.
    const over = texts.flatMap((text) => [
      ...text.matchAll(/(billed|live) spend (\$[\d,.]+) of \$50(?:\.00)? is over by (\$[\d,.]+)/gi),
    ]);
    expect(over.length, texts.at(-1)).toBeGreaterThan(0);
    for (const [, , spent, by] of over) {
      expect(by, 'cents, no more').toMatch(/^\$\d+\.\d\d$/);
      expect(dollars(by ?? '')).toBeCloseTo(dollars(spent ?? '') - 50, 2);
    }
  }, 300_000);
});
