import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toIso, VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db/open.js';
import { recentReceipts } from '../../src/db/receipts.js';
import { checkLink, loadLinkSecret } from '../../src/links/index.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { busyPods, L40S, l40sCatalog } from './support/l40s-fleet.js';

/**
 * A stop follows a warning delivered for the same idle spell, at least the lead time before it,
 * whose links still work. The Pod idles, is warned, then its telemetry goes unknown for 20
 * minutes (the spell ends, its stop is cancelled), then it idles again: the new spell must be
 * warned by a mail of its own, and the stop must wait the lead time after that mail. The replay
 * is played twice: in full, then up to just before the stop, where the stop's warning link is
 * checked through the link path as the decision saw the database.
 */
const MIN = 60_000;
const START = Date.UTC(2026, 11, 1, 2, 0, 0);

const scenario = () =>
  parseScenario(
    {
      name: 'idle-late',
      start: toIso(START),
      apiKey: 'sim-key',
      catalog: l40sCatalog(),
      pods: [
        {
          id: 'idle-late',
          name: 'idle-late',
          gpu: L40S,
          cost: 0.86,
          status: 'RUNNING',
          startedAt: '-2h',
          utilization: [
            { at: '0s', gpu: 0, memory: 5 },
            // Telemetry missing for 20 minutes, from a few minutes after the first warning.
            { at: '36m', runtime: null },
            { at: '56m', gpu: 0, memory: 5 },
          ],
        },
        // Busy Pods, so stopping idle-late stays within the blast-radius cap.
        ...busyPods(),
      ],
    },
    'idle-late',
  );

const unfold = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

let peers: SmtpPeer[] = [];
let dirs: string[] = [];
afterEach(async () => {
  for (const peer of peers) await peer.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  peers = [];
  dirs = [];
});

async function play(durationMs: number) {
  const clock = new VirtualClock(START);
  const peer = await startSmtp();
  peers.push(peer);
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-spell-'));
  dirs.push(dir);
  const config = parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused-key' }],
      collectors: onlyCollectors(['catalog', 'pods', 'stock']),
      http: { publicUrl: 'https://pw.example.com/' },
      idle: { rules: [{ name: 'default', dryRun: false, stopWhenScarce: true }] },
      email: { host: '127.0.0.1', port: peer.port, secure: 'none', from: 'pw@example.com', to: ['ml@example.com'] },
    },
    { env: {}, baseDir: '/' },
  );
  const dbPath = join(dir, 'podwarden.db');
  const report = await replay({
    scenario: scenario(),
    config,
    durationMs,
    clock,
    smtp: { host: '127.0.0.1', port: peer.port },
    dbPath,
    log: silentLogger(),
  });
  return { report, peer, config, dbPath, clock };
}

describe('a stop follows a warning of the same idle spell', () => {
  it('warns the new spell by a mail of its own and stops the lead time after it, its link still good', async () => {
    const full = await play(150 * MIN);
    const lead = full.config.idle.rules[0]!.warnLeadMs;
    const mails = full.report.emails.map((e) => `${e.at} ${e.delivered ? 'delivered' : 'queued'} ${e.subject}`);
    const stops = full.report.stops.map((s) => `${s.at} ${s.podId}${s.dryRun ? ' (dry run)' : ''}`);
    // Printed for the report of this scenario: every mail and every stop with their times.
    console.log(`mails:\n  ${mails.join('\n  ')}\nstops:\n  ${stops.join('\n  ')}`);

    expect(full.report.stops).toHaveLength(1);
    const stop = full.report.stops[0]!;
    const stopAt = Date.parse(stop.at);
    const database = openDatabase(full.dbPath);
    let episode: number;
    try {
      const stopped = (await recentReceipts(database, 500, { podId: 'idle-late' })).find(
        (r) => r.decision === 'stopped',
      );
      if (!stopped) throw new Error('no stopped receipt');
      episode = stopped.episodeStartedAt;
      const cancelled = (await recentReceipts(database, 500, { podId: 'idle-late' })).filter(
        (r) => r.decision === 'cancelled',
      );
      // The scenario does what it says: a first spell warned and cancelled by the unknown stretch.
      expect(cancelled.length).toBe(1);
      expect(cancelled[0]!.episodeStartedAt).toBeLessThan(episode);
      const guard = stopped.guards.find((g) => g.guard === 'warning_delivered');
      expect(guard?.passed).toBe(true);
    } finally {
      database.close();
    }

    // A warning mail written during the stopped spell, delivered at least the lead time before the stop.
    const isWarning = (keys: string[]) => keys.some((k) => k.startsWith('idle:sim:idle-late:warn'));
    const warnings = full.report.emails.filter((e) => isWarning(e.alertKeys));
    const ofSpell = warnings.filter((e) => e.delivered && Date.parse(e.at) >= episode);
    expect(ofSpell.length).toBeGreaterThan(0);
    expect(stopAt).toBeGreaterThanOrEqual(Math.min(...ofSpell.map((e) => Date.parse(e.at))) + lead);
    // The minute that mail names for the stop is not after the stop: the promise holds.
    const named = /stopped at (\d\d):(\d\d) UTC or later/.exec(ofSpell[0]?.subject ?? '');
    if (!named) throw new Error(`no stop time in ${ofSpell[0]?.subject}`);
    const namedAt = Date.parse(`${toIso(stopAt).slice(0, 11)}${named[1]}:${named[2]}:00Z`);
    expect(stopAt).toBeGreaterThanOrEqual(namedAt);
    // One warning mail per spell.
    expect(warnings).toHaveLength(2);

    // The same world up to just before the stop: the mail's keep-running link, checked at the
    // stop's decision, is still good (the spell it was about is the one stopped).
    const before = await play(stopAt - START - 1000);
    expect(before.report.stops).toHaveLength(0);
    const mail = before.peer.received.filter((m) => isWarning(m.alertKeys)).at(-1);
    if (!mail) throw new Error('the replay up to the stop sent no warning');
    const token = /https:\/\/pw\.example\.com\/pods\/sim\/idle-late\/keep-running\?t=([\w.-]+)/.exec(unfold(mail.body));
    if (!token) throw new Error('the warning carries no keep-running link');
    const db = openDatabase(before.dbPath);
    try {
      const secret = await loadLinkSecret(db, before.config, before.clock);
      const target = { action: 'keep-running', account: 'sim', subject: 'idle-late' } as const;
      expect(await checkLink(db, secret, token[1] as string, target, stopAt)).toMatchObject({ ok: true });
    } finally {
      db.close();
    }
  }, 300_000);
});
