import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/**
 * How far (%) the old generation may grow past the last full collection's survivors: V8's own up
 * to 300 % lets a backfill's garbage pile up. A pace, not a cap: live data still gets what it needs.
 */
export const HEAP_GROWING_PERCENT = 50;

export interface MemoryPolicy {
  /** The growth allowed between full collections, in percent; null when V8 chooses (0 on the command line). */
  heapGrowingPercent: number | null;
  /** Who set it: podwarden, or `--heap-growing-percent` given to node. */
  setBy: 'podwarden' | 'node command line';
  /** The heap's hard limit (Node's default, or `--max-old-space-size`), in MB. */
  heapLimitMb: number;
}

/**
 * Applies the daemon's memory pace unless node was started with its own `--heap-growing-percent`
 * (which wins, 0 meaning V8's default), and says what the process runs under.
 */
export function applyMemoryPolicy(execArgv: readonly string[] = process.execArgv): MemoryPolicy {
  const given = execArgv
    .map((arg) => /^--heap[-_]growing[-_]percent=(\d+)$/.exec(arg)?.[1])
    .filter((value) => value !== undefined)
    .at(-1);
  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 1048576);
  if (given !== undefined) {
    const percent = Number(given);
    return { heapGrowingPercent: percent > 0 ? percent : null, setBy: 'node command line', heapLimitMb };
  }
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return { heapGrowingPercent: HEAP_GROWING_PERCENT, setBy: 'podwarden', heapLimitMb };
}
