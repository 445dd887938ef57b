import type { Config } from '../config/schema.js';
import { watchedGpuTypeIds } from '../config/sections/capacity.js';
import { latestGpuAvailability } from '../db/catalog.js';
import { activeSnoozes } from '../db/idle-state.js';
import { gpuTypeNames } from '../db/names.js';
import { savingsOverlapping, savingsSoFar } from '../db/savings.js';
import { BARE_COMMAND_LINE, type CommandLine } from '../messages/commands.js';
import type { MetricsSource } from '../metrics/source.js';
import { readStatus } from '../metrics/status.js';

/** How many of the latest idle decisions the page shows (the Pod's page has its own). */
const RECENT_RECEIPTS = 15;

/** Everything the status page shows (readStatus, as /api/status), kept as numbers for formatting. */
export type StatusData = Awaited<ReturnType<typeof readStatus>> & {
  /** Snoozes lasting beyond now, by `account/podId`: a snoozed Pod's planned stop is off. */
  snoozedUntil: Map<string, number>;
  capacity: Awaited<ReturnType<typeof capacityRows>>;
  /** How the commands the page quotes run this podwarden. */
  commandLine: CommandLine;
  /** What the stops sent saved so far, per account (the savings ledger). */
  savings: ReturnType<typeof savingsSoFar>;
};

export async function statusData(source: MetricsSource, config: Config, now: number): Promise<StatusData> {
  const snoozedUntil = new Map<string, number>();
  for (const { name: account } of config.accounts) {
    for (const [podId, until] of await activeSnoozes(source.db, account, now)) {
      snoozedUntil.set(snoozeKey(account, podId), until);
    }
  }
  return {
    ...(await readStatus(source, config, now, RECENT_RECEIPTS)),
    snoozedUntil,
    capacity: await capacityRows(source, config),
    commandLine: source.commandLine ?? BARE_COMMAND_LINE,
    savings: savingsSoFar(await savingsOverlapping(source.db, { from: 0, to: now }), now),
  };
}

export const snoozeKey = (account: string, podId: string) => `${account}/${podId}`;

/** Each watched GPU type's availability now, where each watch looks (globally or per data center). */
async function capacityRows(source: MetricsSource, config: Config) {
  const rows = [];
  for (const account of config.accounts.map((a) => a.name)) {
    const watches = config.capacity.watch.filter((watch) => !watch.account || watch.account === account);
    if (watches.length === 0) continue;
    const names = await gpuTypeNames(source.db, account);
    const latest = await latestGpuAvailability(source.db, account);
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
            // '' for the GPU type's availability over every data center.
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
