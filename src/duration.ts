/**
 * Durations as people write them in configs and scenarios: `90s`, `30m`, `6h`, `2d`, `1w`,
 * combined (`1h30m`), and negative (`-2d`) where an offset may lie in the past.
 */
const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const WHOLE = /^(-)?((?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+)$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;

export class DurationError extends Error {}

/** Parses a duration string into milliseconds; throws DurationError naming the bad input. */
export function parseDuration(text: string): number {
  const match = WHOLE.exec(text.trim());
  if (!match) {
    throw new DurationError(`invalid duration "${text}" (expected e.g. 90s, 30m, 6h, 2d, 1h30m)`);
  }
  let total = 0;
  for (const [, amount, unit] of (match[2] ?? '').matchAll(PART)) {
    total += Number(amount) * (UNIT_MS[unit as string] ?? 0);
  }
  return Math.round(match[1] ? -total : total);
}

/** The shortest exact form of a duration: 5400000 → "1h30m". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  let out = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms']) {
    const size = UNIT_MS[unit] as number;
    const count = Math.floor(rest / size);
    if (count > 0) {
      out += `${count}${unit}`;
      rest -= count * size;
    }
  }
  return sign + out;
}
