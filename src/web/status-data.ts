import { type IdleCandidate, idleCandidates } from '../actions/idle-status.js';
import type { Config } from '../config/schema.js';
import { type AvailabilityLevel, watchedGpuTypeIds } from '../config/sections/capacity.js';
import { type AlertRecord, firingAlerts } from '../db/alerts.js';
import { latestGpuAvailability } from '../db/catalog.js';
import { activeSnoozes } from '../db/idle-state.js';
import { gpuTypeNames } from '../db/names.js';
import { type ReceiptRecord, recentReceipts } from '../db/receipts.js';
import { BARE_COMMAND_LINE, type CommandLine } from '../messages/commands.js';
import { type CollectorHealth, collectorHealth } from '../metrics/collector-health.js';
import { checkReadiness } from '../metrics/readiness.js';
import type { MetricsSource } from '../metrics/source.js';
import type { BudgetStatus } from '../rules/budget.js';
import { budgetStatus } from '../tick/budget-status.js';

/** How many of the latest idle decisions the page shows (the Pod's page has its own). */
const RECENT_RECEIPTS = 15;

export interface CapacityRow {
  account: string;
  gpuName: string;
  gpuTypeId: string;
  product: string;
  /** '' for the GPU type's availability over every data center. */
  dataCenterId: string;
  availability: string | null;
  wanted: readonly AvailabilityLevel[];
  priceSecure: number | null;
}

/** Everything the status page shows, read like /api/status: the database and memory, never the API. */
export interface StatusData {
  now: number;
  ready: boolean;
  reasons: string[];
  collectors: CollectorHealth[];
  budgets: BudgetStatus[];
  idle: IdleCandidate[];
  /** Snoozes lasting beyond now, by `account/podId`: a snoozed Pod's planned stop is off. */
  snoozedUntil: Map<string, number>;
  receipts: ReceiptRecord[];
  alerts: AlertRecord[];
  capacity: CapacityRow[];
  /** How the commands the page quotes run this podwarden. */
  commandLine: CommandLine;
}

/** The same reads as /api/status (src/metrics/status.ts), kept as numbers for formatting. */
export async function statusData(source: MetricsSource, config: Config, now: number): Promise<StatusData> {
  const readiness = checkReadiness(source, config, now);
  return {
    now,
    ready: readiness.ready,
    reasons: readiness.reasons,
    collectors: collectorHealth(source, config, now),
    budgets: budgetStatus(source.db, config, now),
    idle: await idleCandidates(source.db, config, now),
    snoozedUntil: new Map(
      config.accounts.flatMap(({ name: account }) =>
        [...activeSnoozes(source.db, account, now)].map(
          ([podId, until]) => [snoozeKey(account, podId), until] as const,
        ),
      ),
    ),
    receipts: recentReceipts(source.db, RECENT_RECEIPTS),
    alerts: firingAlerts(source.db),
    capacity: capacityRows(source, config),
    commandLine: source.commandLine ?? BARE_COMMAND_LINE,
  };
}

export const snoozeKey = (account: string, podId: string) => `${account}/${podId}`;

/** Each watched GPU type's availability now, where each watch looks (globally or per data center). */
function capacityRows(source: MetricsSource, config: Config): CapacityRow[] {
  const rows: CapacityRow[] = [];
  for (const account of config.accounts.map((a) => a.name)) {
    const watches = config.capacity.watch.filter((watch) => !watch.account || watch.account === account);
    if (watches.length === 0) continue;
    const names = gpuTypeNames(source.db, account);
    const latest = latestGpuAvailability(source.db, account);
    for (const watch of watches) {
      const ids = watchedGpuTypeIds(watch, names);
      for (const gpuTypeId of ids) {
        for (const dataCenterId of watch.dataCenters ?? ['']) {
          const row = latest.find(
            (r) => r.gpuTypeId === gpuTypeId && r.product === watch.product && r.dataCenterId === dataCenterId,
          );
          rows.push({
            account,
            gpuName: names.get(gpuTypeId) ?? gpuTypeId,
            gpuTypeId,
            product: watch.product,
            dataCenterId,
            availability: row?.availability ?? null,
            wanted: watch.levels,
            priceSecure: row?.priceSecure ?? null,
          });
        }
      }
    }
  }
  return rows;
}
