import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daemonNow } from '../../src/cli/daemon-now.js';
import { openDatabase } from '../../src/db/open.js';
import { podSnoozes } from '../../src/db/schema.js';
import { loadLinkSecret, redeemLink, signLink } from '../../src/links/index.js';
import type { ReplayReport } from '../../src/replay/report.js';
import { idleFrom, pod, scenario } from '../actions/idle-world.js';
import { runCli } from '../helpers/cli.js';

let dir: string;
let dbPath: string;
let configPath: string;
let report: ReplayReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-why-'));
  dbPath = join(dir, 'replay.db');
  configPath = join(dir, 'podwarden.yaml');
  const source = scenario([
    pod('nb', idleFrom('10m')),
    pod('train', [{ at: '-2h', gpu: 90, gpuMemory: 80, memory: 50 }]),
  ]);
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify(source));
  writeFileSync(configPath, `accounts:\n  - name: sim\n    apiKey: sim-key\ndatabase:\n  path: ${dbPath}\n`);
  // No --config: the default idle rule runs in dry run and the report lists the stops it would make.
  const run = await runCli(
    [
      'simulate',
      '--scenario',
      join(dir, 'scenario.json'),
      '--until',
      '2h',
      '--db',
      dbPath,
      '--report',
      join(dir, 'report.json'),
    ],
    { timeoutMs: 120_000 },
  );
  expect(run.stderr).toContain('1 stop,');
  expect(run.code).toBe(0);
  report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as ReplayReport;
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('podwarden simulate', () => {
  it('lists every stop decided, with dryRun, in time order', () => {
    // Warned 00:40:30, the warning delivered 00:41:30 (by the replay's in-process mail sink): the
    // stop comes warnLead (15m) after the delivery.
    expect(report.stops).toEqual([{ at: '2026-11-02T00:56:30Z', podId: 'nb', dryRun: true }]);
    expect(report.pods).toContainEqual({ id: 'nb', finalStatus: 'RUNNING' });
  });
});

describe('podwarden why', () => {
  it('prints the latest receipts of a Pod, each with a sparkline of the window and its guards', async () => {
    const result = await runCli(['why', 'nb', '--config', configPath, '--limit', '3']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [warned, held, decided] = result.stdout.split('\n\n');
    expect(warned).toContain('2026-11-02T00:40:30Z  nb (nb, sim), rule default: warned');
    expect(warned).toContain('stop planned at 2026-11-02T00:55:30Z (dry run)');
    expect(held).toContain('2026-11-02T00:55:30Z  nb (nb, sim), rule default: stop blocked');
    expect(held).toContain(
      'FAIL warning_delivered: warning delivered 2026-11-02T00:41:30Z; its lead time runs until 2026-11-02T00:56:30Z',
    );
    expect(decided).toContain('2026-11-02T00:56:30Z  nb (nb, sim), rule default: would stop (dry run: nothing sent)');
    expect(decided).toContain(`GPU 00:26 ${'▁'.repeat(30)} 00:56  (30 samples, 30 idle, idle coverage 100%)`);
    expect(decided).toContain('thresholds: GPU ≤ 5% over 30m, coverage ≥ 90% and 3 samples, grace 15m');
    expect(decided).toContain('pass pod_state: not re-read: dry run sends no request');
    expect(decided).toMatch(/cost \$0\.27\/h, saving when stopped \$0\.26\/h/);
  });

  it('says so when a Pod has no receipts', async () => {
    const result = await runCli(['why', 'train', '--config', configPath]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('train: no idle decisions recorded\n');
  });

  it('names an unknown Pod or account and lists the known ones, with exit 2', async () => {
    const pod = await runCli(['why', 'tarin', '--config', configPath]);
    expect(pod.stdout).toBe('');
    expect(pod.stderr).toBe(
      'podwarden: why tarin: no account has seen this Pod (did you mean train?); known Pods: nb, train\n',
    );
    expect(pod.code).toBe(2);
    const account = await runCli(['why', 'nb', '--account', 'prod', '--config', configPath]);
    expect(account.stdout).toBe('');
    expect(account.stderr).toBe('podwarden: why nb: --account prod: no such account; configured accounts: sim\n');
    expect(account.code).toBe(2);
  });
});

describe('podwarden snooze', () => {
  it('snoozes a Pod the database knows, in each account that has seen it', async () => {
    const result = await runCli(['snooze', 'nb', '90m', '--config', configPath]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^nb \(sim\): snoozed until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(1h30m\)\n$/);
    const database = openDatabase(dbPath);
    try {
      const [row, ...others] = database.db.select().from(podSnoozes).all();
      expect(others).toEqual([]);
      expect(row?.podId).toBe('nb');
      expect((row?.until ?? 0) - (row?.createdAt ?? 0)).toBe(90 * 60_000);
    } finally {
      database.close();
    }
  });

  it('refuses an unknown Pod and a bad duration with exit 2', async () => {
    const unknown = await runCli(['snooze', 'nope', '1h', '--config', configPath]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'snooze nope: no account has seen this Pod yet; pass --account to snooze it anyway',
    );
    const bad = await runCli(['snooze', 'nb', 'soon', '--config', configPath]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('duration: invalid duration "soon"');
  });
});

describe('podwarden why, after an emailed keep-running link', () => {
  it('says the Pod is snoozed from an emailed link, and for whom', async () => {
    const database = openDatabase(dbPath);
    try {
      const clock = await daemonNow(database);
      const secret = await loadLinkSecret(
        database,
        { http: { listen: '0.0.0.0:9464', linkExpiryMs: 86_400_000, allowedHosts: [], trustedProxies: [] } },
        {
          now: () => clock.now,
        },
      );
      const claims = {
        action: 'keep-running' as const,
        account: 'sim',
        subject: 'nb',
        until: clock.now + 2 * 3_600_000,
        durationMs: 2 * 3_600_000,
        label: '2 h',
        recipient: 'ana@example.com',
        expiresAt: clock.now + 86_400_000,
        nonce: 'why-1',
        timeZone: 'UTC',
        episode: null,
      };
      const target = { action: 'keep-running', account: 'sim', subject: 'nb' } as const;
      expect(await redeemLink(database, secret, signLink(secret, claims), target, clock.now)).toMatchObject({
        ok: true,
      });
    } finally {
      database.close();
    }
    const result = await runCli(['why', 'nb', '--config', configPath]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /nb \(sim\): snoozed until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ.* from an emailed link \(ana@example\.com\): no idle warning or stop before then\n$/,
    );
  });
});
