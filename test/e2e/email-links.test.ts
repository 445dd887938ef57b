import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db/open.js';
import { podSnoozes } from '../../src/db/schema.js';
import { checkLink, loadLinkSecret, redeemLink } from '../../src/links/index.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';
import { L40S, l40sCatalog } from './support/l40s-fleet.js';

/**
 * The daemon's own path, with a real SMTP server: with `http.publicUrl` set, the idle warning that
 * goes out carries keep-running links whose tokens verify against the secret the daemon kept in
 * its database (after it stopped: links survive restarts) and act once, recorded as from an
 * emailed link for the message's recipients.
 */
const MIN = 60_000;
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
      ],
    },
    'idle-notebook',
  );

/** The text of a MIME message with quoted-printable undone (nodemailer folds long lines). */
const unfold = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

let peer: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('links in the mails the daemon sends', () => {
  it('carry tokens that verify against the stored secret after the daemon stopped, and act once', async () => {
    const clock = new VirtualClock(START);
    peer = await startSmtp();
    dir = mkdtempSync(join(tmpdir(), 'podwarden-links-'));
    const dbPath = join(dir, 'podwarden.db');
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['catalog', 'pods', 'stock']),
        http: { publicUrl: 'https://pw.example.com/' },
        email: {
          host: '127.0.0.1',
          port: peer.port,
          secure: 'none',
          from: 'podwarden@example.com',
          to: ['ana@example.com', 'ml@example.com'],
        },
      },
      { env: {}, baseDir: '/' },
    );
    await replay({
      scenario: scenario(),
      config,
      durationMs: 45 * MIN,
      clock,
      smtp: { host: '127.0.0.1', port: peer.port },
      dbPath,
      log: silentLogger(),
    });
    const warning = peer.received.find((mail) => mail.alertKeys.includes('idle:sim:nb:warn'));
    if (!warning) throw new Error(`no warning among ${peer.received.map((mail) => mail.subject).join('; ')}`);
    const body = unfold(warning.body);
    const tokens = [...body.matchAll(/https:\/\/pw\.example\.com\/pods\/sim\/nb\/keep-running\?t=([\w.-]+)/g)].map(
      (match) => match[1] as string,
    );
    // Three links, each in the text part and the HTML part.
    expect(new Set(tokens).size).toBe(3);
    // The notice and the warning about nb share the message and one identity: one pair of silence links.
    expect(body.match(/^Silence for 4 h:/gm)).toHaveLength(1);
    expect(body).toMatch(
      /Silence for 4 h:\s+https:\/\/pw\.example\.com\/alerts\/sim\/idle%3Asim%3Anb[^/]*\/silence\?t=/,
    );

    const database = openDatabase(dbPath);
    try {
      const secret = await loadLinkSecret(database, config, clock);
      const target = { action: 'keep-running', account: 'sim', subject: 'nb' } as const;
      const [twoHours] = tokens as [string];
      const check = await checkLink(database, secret, twoHours, target, clock.now());
      expect(check).toMatchObject({
        ok: true,
        claims: { label: '2 h', recipient: 'ana@example.com, ml@example.com' },
        preview: { question: expect.stringMatching(/^Keep notebook running until \d\d:\d\d UTC\?$/) },
      });
      expect(await redeemLink(database, secret, twoHours, target, clock.now())).toMatchObject({ ok: true });
      expect(database.db.select().from(podSnoozes).all()).toEqual([
        {
          account: 'sim',
          podId: 'nb',
          until: clock.now() + 120 * MIN,
          createdAt: clock.now(),
          source: 'email link',
          createdBy: 'ana@example.com, ml@example.com',
        },
      ]);
      expect(await redeemLink(database, secret, twoHours, target, clock.now())).toMatchObject({
        ok: false,
        refusal: { reason: 'used' },
      });
    } finally {
      database.close();
    }
  }, 300_000);
});
