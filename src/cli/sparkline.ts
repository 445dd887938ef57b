const BARS = '▁▂▃▄▅▆▇█';
/** Unknown is shown as a gap, never as a low bar: it is not idle. */
const UNKNOWN = '·';

/** One character per value (0–100 %), `·` for an unknown one. */
export function sparkline(values: ReadonlyArray<number | null>): string {
  return values
    .map((value) => {
      if (value === null) return UNKNOWN;
      const clamped = Math.min(100, Math.max(0, value));
      return BARS[Math.min(BARS.length - 1, Math.floor((clamped / 100) * BARS.length))];
    })
    .join('');
}
