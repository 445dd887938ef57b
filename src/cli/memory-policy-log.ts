import { formatBytes } from '../format.js';
import type { Logger } from '../log.js';
import { applyMemoryPolicy } from '../memory-policy.js';

/**
 * Applies the daemon's memory pace and logs what the process runs under: every command that can
 * hold a large account's data (`run`, and `collect`, whose first billing run is the 30-day backfill).
 */
export function applyAndLogMemoryPolicy(log: Logger): void {
  const memory = applyMemoryPolicy();
  const heapLimit = formatBytes(memory.heapLimitMb * 1024 * 1024);
  log.info(
    memory,
    memory.heapGrowingPercent === null
      ? `memory: heap limit ${heapLimit}, V8's own pace of full collections (${memory.setBy})`
      : `memory: heap limit ${heapLimit}, a full collection once the heap grows ${memory.heapGrowingPercent}% past live data (${memory.setBy})`,
  );
}
