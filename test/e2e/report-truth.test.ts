import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toIso } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { lastSuccessAt } from '../../src/db/collector-runs.js';
import { openDatabase } from '../../src/db/open.js';
import { recentReceipts } from '../../src/db/receipts.js';
import { savingsOverlapping } from '../../src/db/savings.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import type { Simulator } from '../../src/simulator/server.js';
import { runCli } from '../helpers/cli.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { busyPods, L40S, l40sCatalog } from './support/l40s-fleet.js';

/**
 * A day with stops, replayed: the daemon on the virtual clock against the simulator, idle rules
 * not in dry run. A notebook idle from the start is stopped and started again by its owner at
 * 06:00; a job idle from 18:00 is stopped and stays stopped. Then `podwarden report` on the
 * day's database: its spend per Pod, per kind and per day equals what the simulator charged (its
 * ground truth over HTTP) to the cent, and the notebook's saving is its rate × the time stopped.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
const START = Date.UTC(2026, 10, 2);
const RESTART = START + 6 * HOUR;

const scenario = () =>
  parseScenario(
    {
      name: 'report-truth',
      start: toIso(START),
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
          volumeGb: 50,
          utilization: [
            { at: '0s', gpu: 0, memory: 5 },
            { at: '6h', gpu: 85, memory: 60 },
          ],
          events: [{ at: '6h', action: 'start' }],
        },
        {
          id: 'job',
          name: 'batch-job',
          gpu: L40S,
          cost: 0.86,
          status: 'RUNNING',
          startedAt: '-1h',
          volumeGb: 20,
          utilization: [
            { at: '0s', gpu: 90, memory: 60 },
            { at: '18h', gpu: 0, memory: 3 },
          ],
        },
        ...busyPods(),
      ],
      volumes: [{ id: 'vol-1', name: 'datasets', size: 500, dataCenter: 'EU-RO-1', type: 'STANDARD' }],
      endpoints: [
        {
          id: 'ep-1',
          name: 'sdxl',
          gpu: { pools: ['ADA_24'], count: 1 },
          workers: { min: 1, max: 3 },
          pricePerWorkerHour: 0.69,
          load: [
            { at: '0s', running: 1, idle: 0 },
            { at: '8h', running: 0, idle: 1 },
          ],
        },
      ],
    },
    'report-truth',
  );

const dir = mkdtempSync(join(tmpdir(), 'podwarden-report-truth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface ReportJson {
  rows: Array<Record<string, string | number> & { spend: number; saved: number; stops: number }>;
  total: { spend: number; saved: number; stops: number; dryRunStops: number };
}

/** USD the simulated world charged for `kind` (one resource, or all) in [from, to): its own billing record. */
async function charged(sim: Simulator, kind: string, from: number, to: number, id?: string): Promise<number> {
  const query = new URLSearchParams({ kind, from: String(from), to: String(to), ...(id ? { id } : {}) });
  const answer = await fetch(`${sim.url}/_sim/truth/accrued?${query}`);
  const body = (await answer.json()) as { accrued: { totalAmount?: number } };
  return body.accrued.totalAmount ?? 0;
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

describe('podwarden report on a replayed day with stops', () => {
  it("equals the simulator's charges per Pod, kind and day to the cent; savings are rate × stopped time", async () => {
    const dbPath = join(dir, 'day.db');
    const configFile = { accounts: [{ name: 'sim', apiKey: 'unused-key' }], database: { path: dbPath } };
    const config = parseConfig(
      {
        ...configFile,
        collectors: onlyCollectors(['billing', 'catalog', 'pods', 'serverless', 'stock', 'volumes'], {
          billing: { backfill: '1d' },
        }),
        idle: { rules: [{ name: 'default', dryRun: false, stopWhenScarce: true }] },
        email: { host: '127.0.0.1', port: 25, secure: 'none', from: 'podwarden@example.com', to: ['ml@example.com'] },
      },
      { env: {}, baseDir: '/' },
    );
    // The report's window: whole UTC hours the last billing run read after they ended (final).
    const truth = {
      perPod: new Map<string, number>(),
      perKind: new Map<string, number>(),
      perDay: 0,
      /** What the notebook was charged while stopped (its volume disk), from its stop to the restart. */
      nbWhileStopped: 0,
    };
    let window = { from: START, to: START };
    const report = await replay({
      scenario: scenario(),
      config,
      durationMs: 24 * HOUR,
      dbPath,
      log: silentLogger(),
      atEnd: async ([sim]) => {
        if (!sim) throw new Error('no simulator');
        const database = openDatabase(dbPath);
        const lastRead = await lastSuccessAt(database, 'sim', 'billing');
        const nbStop = (await recentReceipts(database, 100, { podId: 'nb' })).find((r) => r.decision === 'stopped');
        database.close();
        truth.nbWhileStopped = await charged(sim, 'pods', nbStop?.decidedAt ?? RESTART, RESTART, 'nb');
        window = { from: START, to: Math.floor((lastRead ?? START) / HOUR) * HOUR };
        for (const id of ['nb', 'job', 'train-a', 'train-b']) {
          truth.perPod.set(id, await charged(sim, 'pods', window.from, window.to, id));
        }
        for (const kind of ['pods', 'serverless', 'network_volumes', 'clusters']) {
          truth.perKind.set(kind, await charged(sim, kind, window.from, window.to));
        }
        truth.perDay = await charged(sim, 'all', window.from, window.to);
      },
    });
    expect(report.stops.map((stop) => [stop.podId, stop.dryRun])).toEqual([
      ['nb', false],
      ['job', false],
    ]);
    expect(window.to).toBeGreaterThanOrEqual(START + 23 * HOUR);

    writeFileSync(join(dir, 'podwarden.yaml'), JSON.stringify(configFile));
    const run = async (by: string): Promise<ReportJson> => {
      const result = await runCli(
        [
          'report',
          '--config',
          join(dir, 'podwarden.yaml'),
          '--from',
          toIso(window.from),
          '--to',
          toIso(window.to),
        ].concat(['--by', by, '--format', 'json']),
        { timeoutMs: 120_000 },
      );
      expect(result.stderr).toBe('');
      return JSON.parse(result.stdout) as ReportJson;
    };
    const byPod = await run('pod');
    const byKind = await run('kind');
    const byDay = await run('day');

    const spendOf = (rows: ReportJson['rows'], key: string, value: string) =>
      rows.find((row) => row[key] === value)?.spend ?? 0;
    const side: string[] = [];
    for (const [id, usd] of truth.perPod) {
      side.push(`pod ${id}: report ${spendOf(byPod.rows, 'id', id)} truth ${usd}`);
      expect(spendOf(byPod.rows, 'id', id), `pod ${id}`).toBe(cents(usd));
    }
    for (const [kind, usd] of truth.perKind) {
      side.push(`kind ${kind}: report ${spendOf(byKind.rows, 'kind', kind)} truth ${usd}`);
      expect(spendOf(byKind.rows, 'kind', kind), `kind ${kind}`).toBe(cents(usd));
    }
    side.push(`day 2026-11-02: report ${spendOf(byDay.rows, 'day', '2026-11-02')} truth ${truth.perDay}`);
    expect(spendOf(byDay.rows, 'day', '2026-11-02')).toBe(cents(truth.perDay));
    expect(byPod.total.spend).toBe(cents(truth.perDay));
    expect(byPod.total.stops).toBe(2);

    // The notebook's saving: its receipt's rate from the stop until the poll that saw it running.
    const database = openDatabase(dbPath, { readonly: true });
    try {
      const [stop] = (await recentReceipts(database, 100, { podId: 'nb' })).filter((r) => r.decision === 'stopped');
      const saving = (await savingsOverlapping(database, window)).find((s) => s.podId === 'nb');
      expect(saving?.stoppedAt).toBe(stop?.decidedAt);
      expect(saving?.endedAt).toBeGreaterThanOrEqual(RESTART);
      expect(saving?.endedAt).toBeLessThanOrEqual(RESTART + MIN);
      const stoppedHours = ((saving?.endedAt ?? 0) - (stop?.decidedAt ?? 0)) / HOUR;
      const nbSaved = byPod.rows.find((row) => row.id === 'nb')?.saved;
      side.push(`nb saved: report ${nbSaved}, rate ${stop?.savingPerHr}/h × ${stoppedHours.toFixed(4)} h`);
      expect(nbSaved).toBe(cents((stop?.savingPerHr ?? 0) * stoppedHours));
      // What the stop really saved: what the notebook would have cost running, less what it was
      // charged stopped, until its owner started it (the ledger closes at the poll that saw it).
      const untilRestart = (RESTART - (stop?.decidedAt ?? 0)) / HOUR;
      const really = 0.86 * untilRestart - truth.nbWhileStopped;
      side.push(`nb really saved (0.86/h running, charged ${truth.nbWhileStopped} stopped): ${really}`);
      expect(Math.abs((nbSaved ?? 0) - really)).toBeLessThan(0.01 + (0.86 * ((saving?.endedAt ?? 0) - RESTART)) / HOUR);
      side.push(`window ${toIso(window.from)} to ${toIso(window.to)}; stops ${JSON.stringify(report.stops)}`);
    } finally {
      database.close();
    }
    console.log(['report beside the simulator truth:', ...side].join('\n  '));
  }, 900_000);
});
