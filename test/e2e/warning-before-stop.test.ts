import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db/open.js';
import { recentReceipts } from '../../src/db/receipts.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { busyPods, L40S, l40sCatalog } from './support/l40s-fleet.js';

/**
 * The warning comes before the stop: with the SMTP server down for the first hour, a Pod idle from
 * the start is warned, but not stopped until the warning was accepted and the lead time passed
 * from then; the receipts of the held stop say why.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const START = Date.UTC(2026, 10, 2, 0, 0, 0);

const scenario = () =>
  parseScenario(
    {
      name: 'idle-notebook',
      start: '2026-11-02T00:00:00Z',
      apiKey: 'sim-key',
      catalog: l40sCatalog(),
      pods: [
        {
          id: 'nb',
          name: 'notebook',
          gpu: L40S,
          cost: 0.86,
          status: 'RUNNING',
          startedAt: '-2h',
          utilization: [{ at: '0s', gpu: 0, memory: 5 }],
        },
        // Busy Pods, so stopping the notebook stays within the blast-radius cap.
        ...busyPods(),
      ],
    },
    'idle-notebook',
  );

let peer: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('warning before stop', () => {
  it('holds the stop while SMTP is down for an hour, then stops the lead time after the warning was accepted', async () => {
    const clock = new VirtualClock(START);
    peer = await startSmtp({ refuse: () => clock.now() < START + HOUR });
    dir = mkdtempSync(join(tmpdir(), 'podwarden-warn-'));
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['catalog', 'pods', 'stock']),
        // The simulated catalog has no L40S stock: this test is about the warning, not scarcity.
        idle: { rules: [{ name: 'default', stopWhenScarce: true }] },
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
      scenario: scenario(),
      config,
      durationMs: 3 * HOUR,
      clock,
      smtp: { host: '127.0.0.1', port: peer.port },
      dbPath: join(dir, 'podwarden.db'),
      log: silentLogger(),
    });
    const warning = report.emails.find((e) => e.alertKeys.includes('idle:sim:nb:warn'));
    expect(warning?.delivered).toBe(true);
    const acceptedAt = Date.parse(warning?.at ?? '');
    expect(acceptedAt).toBeGreaterThanOrEqual(START + HOUR);
    if (report.stops.length === 0) {
      const database = openDatabase(join(dir, 'podwarden.db'));
      const last = (await recentReceipts(database, 1, { podId: 'nb' }))[0];
      database.close();
      throw new Error(`no stop; the last receipt: ${JSON.stringify(last?.guards.filter((g) => !g.passed))}`);
    }
    expect(report.stops).toHaveLength(1);
    const stopAt = Date.parse(report.stops[0]?.at ?? '');
    expect(stopAt).toBeGreaterThanOrEqual(acceptedAt + config.idle.rules[0]!.warnLeadMs);

    const database = openDatabase(join(dir, 'podwarden.db'));
    try {
      const held = (await recentReceipts(database, 500, { podId: 'nb' })).filter((r) =>
        r.guards.some((g) => g.guard === 'warning_delivered' && !g.passed),
      );
      expect(held.length).toBeGreaterThan(0);
      expect(held.every((r) => r.decidedAt < stopAt)).toBe(true);
      const reasons = held.flatMap((r) => r.guards.filter((g) => g.guard === 'warning_delivered').map((g) => g.detail));
      expect(reasons.some((detail) => detail.includes('has not been delivered') && detail.includes('421'))).toBe(true);
    } finally {
      database.close();
    }
  }, 300_000);
});
