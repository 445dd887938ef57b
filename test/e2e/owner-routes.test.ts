import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { openDatabase } from '../../src/db/open.js';
import { silentLogger } from '../../src/log.js';
import { packagePath } from '../../src/package-root.js';
import { replay } from '../../src/replay/replay.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type ReceivedMail, type SmtpPeer, startSmtp } from '../helpers/smtp.js';

/**
 * Every alert to the Pod's owner: three owners in two teams and a Pod nobody owns
 * (test/e2e/scenarios/three-owners.yaml), replayed for three hours against a real SMTP server.
 * Each owner gets the idle notice and the stop warning of their own notebook and nothing of
 * anyone else's; ml's budget alert goes to ml's lead; the ownerless Pod and every other alert go
 * to the default recipients. Stops still wait for the warning, delivered to the owner.
 */
const START = Date.UTC(2026, 10, 2, 0, 0, 0);
const HOUR = 3_600_000;

const OWNER_OF_POD: Record<string, string> = {
  'nb-alice': 'alice@example.com',
  'nb-bob': 'bob@example.com',
  'nb-carol': 'carol@example.com',
  scratch: 'ops@example.com',
};

let peer: SmtpPeer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The Pod ids an idle alert key names (`idle:sim:nb-alice:warn` → nb-alice). */
const podsOf = (mail: ReceivedMail) =>
  mail.alertKeys.filter((key) => key.startsWith('idle:')).map((key) => key.split(':')[2] as string);

/** What kind of message an alert key is: the idle notice, the stop warning, a budget alert. */
function kindOf(key: string): string {
  const [rule, , subject, stage] = key.split(':');
  if (rule === 'budget') return `budget ${subject}`;
  if (rule === 'idle') return stage === undefined ? 'idle notice' : stage === 'warn' ? 'stop warning' : `idle ${stage}`;
  return key;
}

describe('alerts routed to the owner of each Pod', () => {
  it("sends each owner only their Pods' notices, the budget to the team lead, the ownerless Pod to the default", async () => {
    const clock = new VirtualClock(START);
    peer = await startSmtp();
    dir = mkdtempSync(join(tmpdir(), 'podwarden-owners-'));
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'unused-key' }],
        collectors: onlyCollectors(['billing', 'catalog', 'pods', 'stock']),
        owners: {
          fromEnv: { owner: ['OWNER'], team: ['TEAM'] },
          fromName: ['^(?<team>[a-z]+)-(?<owner>[a-z]+)-'],
          contacts: {
            alice: { email: ['alice@example.com'] },
            bob: { email: ['bob@example.com'] },
            carol: { email: ['carol@example.com'] },
            ml: { email: ['ml-lead@example.com'] },
            vision: { email: ['vision-lead@example.com'] },
          },
        },
        budgets: [
          {
            name: 'ml-daily',
            scope: 'pods',
            namePattern: 'ml-*',
            period: 'day',
            amount: 1.5,
            thresholds: [100],
            figures: ['live'],
          },
        ],
        alerts: {
          routes: [
            { match: { rule: 'idle', owner: '/.+/' }, to: { email: ['owner'] } },
            { match: { rule: 'budget', budget: 'ml-daily' }, to: { email: ['ml-lead@example.com'] } },
          ],
        },
        idle: {
          // The simulated catalog has no L40S stock: this test is about who is told, not scarcity.
          rules: [
            {
              name: 'notebooks',
              dryRun: false,
              stopWhenScarce: true,
              caps: { runningShare: 1, stopsPerEvaluation: 4 },
            },
          ],
        },
        email: { host: '127.0.0.1', port: 25, from: 'podwarden@example.com', to: ['ops@example.com'] },
      },
      { env: {}, baseDir: '/' },
    );
    const report = await replay({
      scenario: loadScenario(packagePath('test/e2e/scenarios/three-owners.yaml')),
      config,
      durationMs: 3 * HOUR,
      clock,
      smtp: { host: '127.0.0.1', port: peer.port },
      dbPath: join(dir, 'podwarden.db'),
      log: silentLogger(),
    });

    // Who received what: one row per recipient and message.
    const rows = peer.received.flatMap((mail) =>
      mail.to.map((to) => `| ${to} | ${mail.alertKeys.map(kindOf).join(', ')} | ${mail.alertKeys.join(' ')} |`),
    );
    console.info(['| recipient | what | alert keys |', '|---|---|---|', ...rows].join('\n'));

    for (const mail of peer.received) {
      // One recipient per message: no one is copied on another person's mail.
      expect(mail.to, mail.subject).toHaveLength(1);
      for (const podId of podsOf(mail)) expect(mail.to, `${podId}: ${mail.subject}`).toEqual([OWNER_OF_POD[podId]]);
    }
    for (const [podId, to] of Object.entries(OWNER_OF_POD)) {
      const keys = peer.received.filter((mail) => mail.to.includes(to)).flatMap((mail) => mail.alertKeys);
      expect(keys, to).toContain(`idle:sim:${podId}`);
      expect(keys, to).toContain(`idle:sim:${podId}:warn`);
    }
    // The budget reaches the team lead, and only the lead.
    const budgetMails = peer.received.filter((mail) => mail.alertKeys.some((key) => key.startsWith('budget:')));
    expect(budgetMails.length).toBeGreaterThan(0);
    expect(new Set(budgetMails.flatMap((mail) => mail.to))).toEqual(new Set(['ml-lead@example.com']));
    // The leads get nothing of a single Pod; nobody else hears of the budget.
    expect(peer.received.filter((mail) => mail.to.includes('vision-lead@example.com'))).toEqual([]);

    // Every notebook was stopped once its warning had reached its owner (or the default).
    expect(report.stops.map((stop) => stop.podId).sort()).toEqual(Object.keys(OWNER_OF_POD).sort());
    for (const stop of report.stops) {
      const warned = report.emails.find((email) => email.alertKeys.includes(`idle:sim:${stop.podId}:warn`));
      expect(warned?.delivered, stop.podId).toBe(true);
      expect(warned?.to).toEqual([OWNER_OF_POD[stop.podId]]);
      expect(Date.parse(stop.at)).toBeGreaterThan(Date.parse(warned?.at ?? ''));
    }

    // The alerts carry the labels routing read: owner and team where known, absent where not.
    const database = openDatabase(join(dir, 'podwarden.db'));
    try {
      const labels = database.sqlite
        .prepare("SELECT key, labels FROM alerts WHERE key LIKE 'idle:sim:%:warn' GROUP BY key ORDER BY key")
        .all() as Array<{ key: string; labels: string }>;
      expect(
        Object.fromEntries(
          labels.map(({ key, labels: text }) => {
            const { owner, team } = JSON.parse(text) as Record<string, string>;
            return [key, { owner, team }];
          }),
        ),
      ).toEqual({
        'idle:sim:nb-alice:warn': { owner: 'alice', team: 'ml' },
        'idle:sim:nb-bob:warn': { owner: 'bob', team: 'ml' },
        'idle:sim:nb-carol:warn': { owner: 'carol', team: 'vision' },
        'idle:sim:scratch:warn': { owner: undefined, team: undefined },
      });
    } finally {
      database.close();
    }
  }, 300_000);
});
