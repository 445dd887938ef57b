import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { describe as describeReceipt } from '../../src/cli/why.js';
import { openDatabase } from '../../src/db/open.js';
import type { ReceiptRecord } from '../../src/db/receipts.js';
import { loadLinkSecret } from '../../src/links/index.js';
import { linkAct, linkConfirmation, linkTarget } from '../../src/web/link-pages.js';
import { call } from '../web/support.js';
import { type EnforceRun, HOUR, MIN, offset, runEnforce, runningPod } from './enforce-replay.js';

let run: EnforceRun | undefined;
let server: Server | undefined;
afterEach(async () => {
  await run?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  run = undefined;
  server = undefined;
});

const PUBLIC = 'https://pw.example.com';

/** The text of a MIME message with quoted-printable undone (nodemailer folds long lines). */
const unfold = (raw: string) =>
  raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('Keep running on a deadline', () => {
  it('moves the deadline by extendBy through the confirmation page and its POST, warns again, and stops at the new deadline', async () => {
    const clicked: Array<{ at: number; page: string; done: string }> = [];
    run = await runEnforce({
      // Started an hour before the scenario with a 2h30m maximum: the deadline falls at 1h30m.
      pods: [runningPod('train')],
      enforce: {
        deadlines: [
          {
            name: 'training',
            match: { names: ['train'] },
            maxRuntime: '2h30m',
            warnLead: '1h',
            extendBy: '2h',
            dryRun: false,
          },
        ],
      },
      extra: { http: { publicUrl: PUBLIC } },
      durationMs: 4 * HOUR + 30 * MIN,
      // At 1h, the owner opens the link of the warning mailed at 0h30 and confirms.
      everyHour: async (at, { clock, dbPath, config, smtp }) => {
        if (at !== Date.parse('2026-12-02T01:00:00Z')) return;
        const mail = smtp.received.find((m) => m.alertKeys.includes('enforce:sim:train:deadline:warn'));
        const link = /https:\/\/pw\.example\.com(\/pods\/sim\/train\/extend-deadline)\?t=([\w.-]+)/.exec(
          unfold(mail?.body ?? ''),
        );
        if (!link) throw new Error(`no extend link in: ${mail?.body ?? 'no warning mail'}`);
        const [, path, token] = link as unknown as [string, string, string];
        const database = openDatabase(dbPath);
        try {
          const context = {
            db: database,
            config,
            secret: await loadLinkSecret(database, config, clock),
            now: clock.now(),
            timeZone: 'UTC',
          };
          server = createServer((req, res) => {
            const url = new URL(req.url ?? '/', 'http://local');
            const target = linkTarget(url.pathname);
            let body = '';
            req.on('data', (chunk) => {
              body += chunk;
            });
            req.on('end', async () => {
              const reply = !target
                ? { status: 404, body: 'no link' }
                : req.method === 'POST'
                  ? await linkAct(context, target, req, new URLSearchParams(body))
                  : await linkConfirmation(context, target, url.searchParams.get('t') ?? '');
              res.writeHead(reply.status, { 'content-type': 'text/html' }).end(reply.body);
            });
          });
          await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
          const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
          const page = await call(`${base}${path}?t=${token}`);
          expect(page.status).toBe(200);
          const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
          // A forger, a token for another Pod, a cross-site form and a form without its check value: refused.
          const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
          expect((await call(`${base}${path}?t=${forged}`)).status).toBe(403);
          expect((await call(`${base}/pods/sim/other/extend-deadline?t=${token}`)).status).toBe(403);
          const crossSite = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' };
          expect(
            (await call(`${base}${path}`, { method: 'POST', headers: crossSite, form: { t: token, csrf } })).status,
          ).toBe(403);
          expect((await call(`${base}${path}`, { method: 'POST', form: { t: token, csrf: 'x' } })).status).toBe(403);
          // A previewer's GET changed nothing: the POST with the form's check value acts.
          const done = await call(`${base}${path}`, { method: 'POST', form: { t: token, csrf } });
          expect(done.status).toBe(200);
          clicked.push({ at: clock.now(), page: page.body, done: done.body });
          // The same link again: used.
          expect((await call(`${base}${path}`, { method: 'POST', form: { t: token, csrf } })).status).toBe(409);
        } finally {
          database.close();
        }
      },
    });
    expect(clicked).toHaveLength(1);
    expect(clicked[0]?.page).toContain('Keep train running 2h longer, until 03:30 UTC?');
    expect(clicked[0]?.page).toContain('Its deadline moves from 01:30 UTC to 03:30 UTC.');
    expect(clicked[0]?.done).toContain('The deadline of train moved to 03:30 UTC; podwarden warns again before it.');

    // Whether the 03:30:30 evaluation finds the second mail's lead run out depends on when within
    // its tick the mail was accepted: a stop held by it is recorded, and made a minute later.
    expect(run.timeline('train').filter((line) => !line.endsWith('blocked:warning_delivered'))).toEqual([
      '00:30:30 deadline warned',
      '01:00:00 deadline extended',
      '02:30:30 deadline warned',
      expect.stringMatching(/^03:3[01]:30 deadline stopped$/),
    ]);
    const extended = run.receipts.find((r) => r.decision === 'extended');
    expect(extended?.plannedStopAt).toBe(Date.parse('2026-12-02T03:30:00Z'));
    // `podwarden why train` names the control and the new deadline.
    expect(describeReceipt(extended as ReceiptRecord)).toBe(
      [
        '2026-12-02T01:00:00Z  train (train, sim), deadline training: stop moved later (Keep running)',
        '  reason: Keep running link of ml@example.com: 2h later, to 2026-12-02T03:30:00Z',
        '  stop planned at 2026-12-02T03:30:00Z',
        '  cost $0.86/h, saving when stopped $0.86/h',
        '',
      ].join('\n'),
    );
    expect(extended?.reason).toBe('Keep running link of ml@example.com: 2h later, to 2026-12-02T03:30:00Z');
    // Two warnings, each mailed its lead time before the deadline it named; the stop after the second's lead.
    const warnings = run.report.emails.filter(
      (m) => m.delivered && m.alertKeys.includes('enforce:sim:train:deadline:warn'),
    );
    expect(warnings).toHaveLength(2);
    const [first, second] = warnings.map((m) => offset(m.at));
    expect(first).toBeGreaterThanOrEqual(30 * MIN);
    expect(first).toBeLessThan(32 * MIN);
    expect(second).toBeGreaterThanOrEqual(150 * MIN);
    expect(second).toBeLessThan(152 * MIN);
    const stopAt = offset(run.report.stops[0]?.at ?? '');
    expect(stopAt).toBeGreaterThanOrEqual(offset(warnings[1]?.at ?? '') + HOUR);
    expect(stopAt).toBeGreaterThanOrEqual(3.5 * HOUR);
    expect(run.report.pods).toEqual([{ id: 'train', finalStatus: 'EXITED' }]);
  }, 300_000);
});
