import { type CapacityWatch, watchedGpuTypeIds } from '../config/sections/capacity.js';
import { type GpuAvailabilityRecord, gpuAvailabilityHistorySync } from './catalog.js';
import { gpuTypeNamesSync } from './names.js';
import type { Database } from './open.js';

/** What the capacity watch list reads of one account: GPU names and the watched histories. */
export interface CapacitySnapshot {
  gpuTypeNames: ReadonlyMap<string, string>;
  /** Availability history, oldest first, by `historyKey` (the overall figure's data center is ''). */
  histories: ReadonlyMap<string, readonly GpuAvailabilityRecord[]>;
}

/** The key of one watched history in CapacitySnapshot.histories. */
export function historyKey(gpuTypeId: string, product: string, dataCenterId: string): string {
  return `${gpuTypeId}\u0000${product}\u0000${dataCenterId}`;
}

/** The histories every watch that covers `account` looks at: its GPU types, overall and per data center. */
export function readCapacitySnapshot(
  database: Database,
  account: string,
  watches: readonly CapacityWatch[],
): CapacitySnapshot {
  const names = gpuTypeNamesSync(database, account);
  const histories = new Map<string, readonly GpuAvailabilityRecord[]>();
  for (const watch of watches) {
    if (watch.account && watch.account !== account) continue;
    for (const gpuTypeId of watchedGpuTypeIds(watch, names)) {
      for (const dataCenterId of ['', ...(watch.dataCenters ?? [])]) {
        const key = historyKey(gpuTypeId, watch.product, dataCenterId);
        if (histories.has(key)) continue;
        histories.set(
          key,
          gpuAvailabilityHistorySync(database, { account, gpuTypeId, product: watch.product, dataCenterId }),
        );
      }
    }
  }
  return { gpuTypeNames: names, histories };
}
