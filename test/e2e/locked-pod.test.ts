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
 * RunPod's own lock: a Pod its owner locked against stopping (`locked: true` in the scenario, the
 * v2 Pod's `locked`) is idle for hours and never stopped. Its receipt names the `locked` guard,
 * and the mail about it says why no stop will come instead of announcing one.
 */
const MIN = 60_000;
const START = Date.UTC(2026, 10, 2, 0, 0, 0);

const scenario = () =>
  parseScenario(
    {
      name: 'locked-notebook',
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
          locked: true,
          utilization: [{ at: '0s', gpu: 0, memory: 5 }],
        },
        ...busyPods(),
      ],
    },
    'locked-notebook',
  );

let peer: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a Pod locked in RunPod', () => {
  it('is never stopped: its receipt names the locked guard and the mail says why', async () => {
    const clock = new VirtualClock(START);
    peer = await startSmtp();
    dir = mkdtempSync(join(tmpdir(), 'podwarden-locked-'));
    const dbPath = join(dir, 'podwarden.db');
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['catalog', 'pods', 'stock']),
        idle: { rules: [{ name: 'default', dryRun: false, stopWhenScarce: true }] },
        email: { host: '127.0.0.1', port: peer.port, secure: 'none', from: 'pw@example.com', to: ['ml@example.com'] },
      },
      { env: {}, baseDir: '/' },
    );
    const report = await replay({
      scenario: scenario(),
      config,
      durationMs: 3 * 60 * MIN,
      clock,
      smtp: { host: '127.0.0.1', port: peer.port },
      dbPath,
      log: silentLogger(),
    });
    expect(report.stops).toEqual([]);
    expect(report.pods.find((pod) => pod.id === 'nb')?.finalStatus).toBe('RUNNING');

    const database = openDatabase(dbPath);
    try {
      const receipts = await recentReceipts(database, 500, { podId: 'nb' });
      expect(receipts.some((r) => r.decision === 'stopped' || r.decision === 'dry_run')).toBe(false);
      const blocked = receipts.filter((r) => r.decision === 'blocked');
      expect(blocked.length).toBeGreaterThan(0);
      const locked = blocked.flatMap((r) => r.guards).find((g) => g.guard === 'locked');
      expect(locked).toMatchObject({ passed: false, detail: expect.stringContaining('locked') });
      expect(blocked.every((r) => r.reason?.startsWith('locked:'))).toBe(true);
    } finally {
      database.close();
    }

    const mails = peer.received.filter((mail) => mail.alertKeys.some((key) => key.startsWith('idle:sim:nb')));
    expect(mails.length).toBeGreaterThan(0);
    for (const mail of mails) expect(mail.subject).not.toMatch(/will be stopped/);
    expect(mails.some((mail) => /locked/i.test(mail.body) && /will not stop it/.test(mail.body))).toBe(true);
  }, 300_000);
});
