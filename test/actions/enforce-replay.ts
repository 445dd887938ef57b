import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase } from '../../src/db/open.js';
import { type ReceiptRecord, recentReceipts } from '../../src/db/receipts.js';
import { silentLogger } from '../../src/log.js';
import { replay } from '../../src/replay/replay.js';
import type { ReplayReport } from '../../src/replay/report.js';
import { parseScenario } from '../../src/simulator/scenario.js';
import { L40S, l40sCatalog } from '../e2e/support/l40s-fleet.js';
import { onlyCollectors } from '../helpers/collectors.js';
import { type SmtpPeer, startSmtp } from '../helpers/smtp.js';

/**
 * Enforcement scenarios replayed as the daemon runs them: the simulator and the daemon on one
 * virtual clock, mail through a real SMTP server, idle rules off (each scenario is about one
 * enforcement control).
 */

/** A Wednesday; a run may start later (`startAt`). */
export const START = Date.UTC(2026, 11, 2, 0, 0, 0);
export const MIN = 60_000;
export const HOUR = 60 * MIN;

/** A RUNNING L40S Pod, busy (so no idle rule would judge it), started `startedAt` before the scenario. */
export function runningPod(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    gpu: L40S,
    cost: 0.86,
    status: 'RUNNING',
    startedAt: '-1h',
    utilization: [{ at: '0s', gpu: 90, memory: 60 }],
    ...extra,
  };
}

export interface EnforceRun {
  report: ReplayReport;
  config: Config;
  smtp: SmtpPeer;
  /** Every receipt, oldest first. */
  receipts: ReceiptRecord[];
  /** `HH:MM:SS kind decision[:guard]` of a Pod's receipts, oldest first. */
  timeline(podId: string): string[];
  close(): Promise<void>;
}

export async function runEnforce(options: {
  pods: Array<Record<string, unknown>>;
  enforce: Record<string, unknown>;
  durationMs: number;
  /** Extra configuration (e.g. `http` for links). */
  extra?: Record<string, unknown>;
  /** When the scenario starts (default START). */
  startAt?: number;
  /** Called every virtual hour while the replay waits: what a person does meanwhile. */
  everyHour?: (
    at: number,
    context: { clock: VirtualClock; dbPath: string; config: Config; smtp: SmtpPeer },
  ) => Promise<void>;
}): Promise<EnforceRun> {
  const startAt = options.startAt ?? START;
  const clock = new VirtualClock(startAt);
  const smtp = await startSmtp();
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-enforce-'));
  const config = parseConfig(
    {
      accounts: [{ name: 'sim', apiKey: 'unused-key' }],
      collectors: onlyCollectors(['catalog', 'pods']),
      idle: { rules: [] },
      enforce: options.enforce,
      email: {
        host: '127.0.0.1',
        port: smtp.port,
        secure: 'none',
        from: 'podwarden@example.com',
        to: ['ml@example.com'],
      },
      ...options.extra,
    },
    { env: {}, baseDir: '/' },
  );
  const scenario = parseScenario(
    {
      name: 'enforce',
      start: new Date(startAt).toISOString(),
      apiKey: 'sim-key',
      catalog: l40sCatalog(),
      pods: options.pods,
    },
    'enforce',
  );
  const dbPath = join(dir, 'podwarden.db');
  const report = await replay({
    scenario,
    config,
    durationMs: options.durationMs,
    clock,
    smtp: { host: '127.0.0.1', port: smtp.port },
    dbPath,
    log: silentLogger(),
    onProgress: options.everyHour && ((at) => options.everyHour?.(at, { clock, dbPath, config, smtp })),
  });
  const database = openDatabase(dbPath, { readonly: true });
  const receipts = (await recentReceipts(database, 100_000)).reverse();
  database.close();
  return {
    report,
    config,
    smtp,
    receipts,
    timeline: (podId) =>
      receipts
        .filter((r) => r.podId === podId)
        .map((r) => {
          const guard = r.decision === 'blocked' ? `:${r.reason?.split(':')[0]}` : '';
          return `${new Date(r.decidedAt).toISOString().slice(11, 19)} ${r.kind} ${r.decision}${guard}`;
        }),
    async close() {
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The time of a report entry, as ms after `from` (the scenario's start by default). */
export const offset = (iso: string, from = START) => Date.parse(iso) - from;
