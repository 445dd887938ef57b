import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { throwOnUsageErrors, UsageError } from '../../src/cli/exit.js';
import { reportCommand } from '../../src/cli/report.js';
import type { BillingRecordInput } from '../../src/db/billing.js';
import { upsertBillingRecords } from '../../src/db/billing.js';
import { writeLadderStep } from '../../src/db/ladder-step.js';
import { openDatabase } from '../../src/db/open.js';
import { type PodInput, syncPods } from '../../src/db/pods.js';
import type { ReceiptInput } from '../../src/db/receipts.js';
import { runCli } from '../helpers/cli.js';

/**
 * `podwarden report` on a database with two days of billing (two Pods of two teams, a serverless
 * endpoint, a network volume), a stop that was started again, one still stopped and a dry run:
 * each format against its golden file, and each bad flag named in its error.
 */
const GOLDEN = resolve('test', 'golden', 'cli');
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (update || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 2);

function pod(podId: string, name: string, status: string, env: Record<string, string> = {}): PodInput {
  return {
    podId,
    name,
    status,
    costPerHr: status === 'RUNNING' ? 0.86 : 0,
    gpuTypeId: 'NVIDIA L40S',
    gpuCount: 1,
    cpuTypeId: null,
    cloud: 'SECURE',
    dataCenterId: 'EU-RO-1',
    clusterId: null,
    clusterRole: null,
    volumeGb: 50,
    networkVolumeId: null,
    env,
    actions: ['stop'],
    locked: 0,
    createdAt: T0 - 24 * HOUR,
    startedAt: T0 - HOUR,
  };
}

function bucket(kind: BillingRecordInput['kind'], resourceId: string, hour: number, total: number): BillingRecordInput {
  const startTime = T0 + hour * HOUR;
  return {
    kind,
    resourceId,
    bucketSize: 'hour',
    startTime,
    endTime: startTime + HOUR,
    totalAmount: total,
    amounts: { totalAmount: total },
  };
}

function stop(key: string, podId: string, name: string, at: number, dryRun: boolean): ReceiptInput {
  return {
    idempotencyKey: key,
    kind: 'idle',
    account: 'main',
    podId,
    podName: name,
    rule: 'default',
    episodeStartedAt: at - HOUR,
    decidedAt: at,
    decision: dryRun ? 'dry_run' : 'stopped',
    reason: null,
    dryRun,
    plannedStopAt: null,
    costPerHr: 0.86,
    savingPerHr: 0.855,
    evidence: {
      windowFrom: 0,
      windowTo: 0,
      thresholds: { utilThreshold: 5, coverage: 0.9, minSamples: 3, windowMs: 0, graceMs: 0, memoryThreshold: 10 },
      coverage: 1,
      idleSamples: 3,
      held: false,
      samples: [],
    },
    guards: [],
  };
}

let dir: string;
let configPath: string;
let records: BillingRecordInput[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-report-'));
  const dbPath = join(dir, 'podwarden.db');
  configPath = join(dir, 'podwarden.yaml');
  writeFileSync(
    configPath,
    [
      'accounts:',
      '  - name: main',
      '    apiKey: key',
      'database:',
      `  path: ${dbPath}`,
      'owners:',
      '  fromEnv: { team: [TEAM] }',
      '  fromName: ["^(?<team>[a-z]+)-"]',
      '',
    ].join('\n'),
  );
  const database = openDatabase(dbPath);
  try {
    const research = pod('p-nb', 'research-notebook', 'RUNNING');
    const vision = pod('p-train', 'trainer, "big"', 'RUNNING', { TEAM: 'vision' });
    await syncPods(database, 'main', [research, vision], T0);
    // 48 hours of Pod billing, amounts with sub-cent parts; the endpoint and volume bill too.
    records = [];
    for (let hour = 0; hour < 48; hour++) {
      records.push(bucket('pods', 'p-nb', hour, hour < 10 || hour >= 30 ? 0.8633 : 0.0071));
      records.push(bucket('pods', 'p-train', hour, 1.7215));
      records.push(bucket('serverless', 'ep-1', hour, hour % 3 === 0 ? 0.0412 : 0));
      records.push(bucket('network_volumes', 'vol-1', hour, 0.0097));
      records.push(bucket('account', '', hour, 999));
    }
    await upsertBillingRecords(database, 'main', records, T0 + 49 * HOUR);
    // The notebook stopped at 10:00, started again at 30:00 (day two, 06:00); a dry run of the
    // trainer at 20:00; the trainer stopped at 46:00, still stopped when the report ends (48:00).
    await writeLadderStep(database, { kind: 'none' }, [stop('nb-stop', 'p-nb', research.name, T0 + 10 * HOUR, false)]);
    await syncPods(
      database,
      'main',
      [{ ...research, status: 'EXITED', costPerHr: 0 }, vision],
      T0 + 10 * HOUR + 60_000,
    );
    await writeLadderStep(database, { kind: 'none' }, [stop('tr-dry', 'p-train', vision.name, T0 + 20 * HOUR, true)]);
    await syncPods(database, 'main', [{ ...research, startedAt: T0 + 30 * HOUR }, vision], T0 + 30 * HOUR);
    await writeLadderStep(database, { kind: 'none' }, [stop('tr-stop', 'p-train', vision.name, T0 + 46 * HOUR, false)]);
  } finally {
    database.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const report = (...args: string[]) =>
  runCli(['report', '--config', configPath, '--from', '2026-11-02', '--to', '2026-11-04', ...args]);

describe('podwarden report', () => {
  it('sums the stored billing to the cent, savings as rate × stopped time, and stops: table by pod', async () => {
    const result = await report('--by', 'pod');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    golden('report-by-pod.txt', result.stdout);
    const json = await report('--by', 'pod', '--format', 'json');
    golden('report-by-pod.json', json.stdout);
    const parsed = JSON.parse(json.stdout) as { total: { spend: number; saved: number; stops: number } };
    const billed = records.filter((r) => r.kind !== 'account').reduce((sum, r) => sum + r.totalAmount, 0);
    expect(parsed.total.spend).toBe(Math.round(billed * 100) / 100);
    // 20 h of the notebook, 2 h of the trainer, at 0.855/h.
    expect(parsed.total.saved).toBe(Math.round(22 * 0.855 * 100) / 100);
    expect(parsed.total.stops).toBe(2);
  }, 120_000);

  it('csv by team: a header row, RFC 4180 quoting, CRLF', async () => {
    const result = await report('--by', 'team', '--format', 'csv');
    expect(result.code).toBe(0);
    golden('report-by-team.csv', result.stdout);
    const pods = await report('--by', 'pod', '--format', 'csv');
    expect(pods.stdout).toContain('main,pods,p-train,"trainer, ""big""",');
  }, 120_000);

  it('json by day, days in a time zone; table by kind', async () => {
    const byDay = await report('--by', 'day', '--format', 'json', '--time-zone', 'America/New_York');
    expect(byDay.code).toBe(0);
    golden('report-by-day.json', byDay.stdout);
    const byKind = await report('--by', 'kind');
    expect(byKind.code).toBe(0);
    golden('report-by-kind.txt', byKind.stdout);
  }, 120_000);

  it('names the bad flag in its error', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--by', 'owner'],
        "option '--by <group>' argument 'owner' is invalid. Allowed choices are pod, team, kind, day.",
      ],
      [['--format', 'xlsx'], "option '--format <format>' argument 'xlsx' is invalid."],
      [['--time-zone', 'Mars/Olympus'], 'report: --time-zone "Mars/Olympus": not an IANA time zone'],
      [['--account', 'mian'], 'report: --account mian: no such account'],
      [['--from', '2026-13-01'], 'report: --from "2026-13-01": expected an ISO date (2026-11-02) or time'],
      [['--to', '2026-11-02T25:00'], 'report: --to "2026-11-02T25:00": expected an ISO date'],
      [['--to', '2026-11-01'], 'report: --to 2026-11-01T00:00:00Z is not after --from 2026-11-02T00:00:00Z'],
    ];
    for (const [args, message] of cases) {
      expect(await reportInProcess(['--from', '2026-11-02', ...args]), args.join(' ')).toContain(message);
    }
    expect(await reportInProcess([])).toContain("required option '--from <date>' not specified");
    // As a user sees it: exit code 2 and the message on stderr.
    const result = await report('--by', 'owner');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--by <group>' argument 'owner' is invalid");
  }, 120_000);
});

/** The command in this process: the usage error it ends with (commander's words or a UsageError's). */
async function reportInProcess(args: string[]): Promise<string> {
  let written = '';
  const command = throwOnUsageErrors(reportCommand()).configureOutput({
    writeErr: (text) => {
      written += text;
    },
  });
  try {
    await command.parseAsync(['--config', configPath, ...args], { from: 'user' });
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    if (error instanceof CommanderError) return written;
    throw error;
  }
  throw new Error(`report ${args.join(' ')}: no error`);
}
