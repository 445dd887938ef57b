/**
 * Every number a person reads is formatted here, once: money, rates, durations, ratios, times
 * with their zone, and shell arguments that survive a copy and paste. Messages, pages and error
 * messages (of any layer) call these; rules and alerts hand over raw figures and never format.
 */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** `$1,234.56`; amounts under a cent keep two significant digits (`$0.0042`) so they do not read as free. */
export function formatUsd(amount: number): string {
  if (amount !== 0 && Math.abs(amount) < 0.01) return `$${amount.toPrecision(2)}`;
  return usd.format(amount);
}

/** `$0.69/h` */
export function formatUsdPerHour(amount: number): string {
  return `${formatUsd(amount)}/h`;
}

/** `41%`; ratios over 1 stay honest (`101%`), and a tiny non-zero share is `<1%`, never `0%`. */
export function formatPercent(ratio: number): string {
  const percent = ratio * 100;
  if (percent > 0 && percent < 1) return '<1%';
  return `${Math.round(percent)}%`;
}

const STEPS: readonly [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1_000],
];

/**
 * A duration as a person says it: the two largest units, rounded down (`1h 45m`, `2d 3h`,
 * `45m`, `30s`); under a second is `0s`. Never milliseconds.
 */
export function formatElapsed(ms: number): string {
  const seconds = Math.floor(Math.abs(ms) / 1000) * 1000;
  const first = STEPS.findIndex(([, size]) => seconds >= size);
  if (first < 0) return '0s';
  const parts = STEPS.slice(first, first + 2)
    .map(([unit, size], index) => {
      const larger = index === 0 ? Number.POSITIVE_INFINITY : (STEPS[first]?.[1] ?? 1);
      return [unit, Math.floor((seconds % larger) / size)] as const;
    })
    .filter(([, count]) => count > 0)
    .map(([unit, count]) => `${count}${unit}`);
  return (ms < 0 ? '-' : '') + parts.join(' ');
}

const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

/** An Intl.DateTimeFormat made once per locale and options: making one costs far more than using it. */
export function dateTimeFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = dateTimeFormats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    dateTimeFormats.set(key, format);
  }
  return format;
}

function formatIn(timeZone: string, withDate: boolean): Intl.DateTimeFormat {
  return dateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
    ...(withDate ? { weekday: 'short', day: 'numeric', month: 'short' } : {}),
  });
}

/** `17:30 UTC`: a clock time with its zone named, in the zone the reader configured. */
export function formatClock(epochMs: number, timeZone: string): string {
  return formatIn(timeZone, false).format(epochMs);
}

/** `Mon 2 Nov, 17:30 UTC` */
export function formatDateTime(epochMs: number, timeZone: string): string {
  return formatIn(timeZone, true)
    .format(epochMs)
    .replace(/^(\w{3}),? /, '$1 ');
}

const SAFE_ARG = /^[\w@%+=:,./-]+$/;

/** A shell argument that pastes safely: left bare when it can be, else single-quoted. */
export function shellQuote(arg: string): string {
  if (arg !== '' && SAFE_ARG.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A whole command line, each argument quoted as needed. */
export function shellCommand(args: readonly string[]): string {
  return args.map(shellQuote).join(' ');
}

/** `$100` for whole dollars, else `$100.84`: amounts people set (budgets) read as they wrote them. */
export function formatUsdBrief(amount: number): string {
  return Number.isInteger(amount) ? formatUsd(amount).replace(/\.00$/, '') : formatUsd(amount);
}

const BARS = '▁▂▃▄▅▆▇█';

/** One character per value (0–100): `▁▂█`; an unknown value is `·`, a gap, never a low bar. */
export function formatSparkline(values: ReadonlyArray<number | null>): string {
  return values
    .map((value) => {
      if (value === null) return '·';
      const clamped = Math.min(100, Math.max(0, value));
      return BARS[Math.min(BARS.length - 1, Math.floor((clamped / 100) * BARS.length))];
    })
    .join('');
}

/** `[█████░░░░░]`: a ratio as a bar of `width` cells; over 1 fills the bar and says so with `▶`. */
export function formatTextBar(ratio: number, width: number): string {
  const filled = Math.max(0, Math.min(width, Math.round(ratio * width)));
  const bar = '█'.repeat(filled) + '░'.repeat(width - filled);
  return `[${bar}]${ratio > 1 ? '▶' : ''}`;
}

const BYTE_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['GB', 1e9],
  ['MB', 1e6],
  ['kB', 1e3],
];

/** A size as disks are sold: decimal units, three significant digits (`903 MB`, `3.70 GB`, `12.5 kB`). */
export function formatBytes(bytes: number): string {
  // 999.6 MB rounds to 1000 MB: from just under a unit on, the larger unit reads better.
  const unit = BYTE_UNITS.find(([, size]) => bytes >= size * 0.9995);
  if (!unit) return `${Math.round(bytes)} bytes`;
  const value = bytes / unit[1];
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit[0]}`;
}

/** `['pods', 3, 'cost']` → `pods[3].cost`: where a field is, as error messages name it; `''` for the root. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out;
}
