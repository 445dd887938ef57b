import { type BucketSize, bucketFloor, HOUR_MS, nextBucketStart } from '../buckets.js';
import type { BillingKind, BillingLine, RatePiece } from './pricing.js';

/**
 * Money is computed analytically from piecewise-constant rates and kept in integer
 * micro-dollars, rounded once per line per UTC hour. Every bucket boundary is an hour boundary,
 * so a day is exactly the sum of its hours, a total is exactly the sum of its records, and
 * changing bucketSize can never change a total: there is no floating-point drift to disagree.
 */
export const MICROS_PER_USD = 1_000_000;

/** Micro-dollars per amount field. */
export type Micros = Record<string, number>;

/** The amount fields of each billing route (besides totalAmount, their sum). */
export const KIND_FIELDS: Record<BillingKind, readonly string[]> = {
  pods: ['gpuAmount', 'cpuAmount', 'diskAmount'],
  serverless: ['gpuAmount', 'cpuAmount', 'diskAmount', 'feeAmount'],
  network_volumes: ['standardAmount', 'highPerformanceAmount'],
  clusters: ['gpuAmount', 'diskAmount', 'networkingAmount'],
  endpoints: [],
};

/** Where each route's amounts land in the account-wide `/v2/billing` record. */
const AGGREGATE_FIELD: Record<BillingKind, Record<string, string>> = {
  pods: { gpuAmount: 'podGpuAmount', cpuAmount: 'podCpuAmount', diskAmount: 'podDiskAmount' },
  serverless: {
    gpuAmount: 'serverlessGpuAmount',
    cpuAmount: 'serverlessCpuAmount',
    diskAmount: 'serverlessDiskAmount',
    feeAmount: 'serverlessFeeAmount',
  },
  network_volumes: { standardAmount: 'storageStandardAmount', highPerformanceAmount: 'storageHighPerformanceAmount' },
  endpoints: { totalAmount: 'endpointAmount' },
  clusters: {
    gpuAmount: 'clusterGpuAmount',
    diskAmount: 'clusterDiskAmount',
    networkingAmount: 'clusterNetworkingAmount',
  },
};

/** The account-wide record's amount fields besides totalAmount, in the order it lists them. */
const AGGREGATE_FIELDS = Object.values(AGGREGATE_FIELD).flatMap((fields) => Object.values(fields));

/**
 * Visits the UTC hours in which a line accrued money, each rounded to micro-dollars. A run of
 * `count` whole hours at one rate comes as one visit (`micros` each), so a month of a steady
 * Pod costs a handful of steps rather than 720.
 */
export function forEachHour(pieces: RatePiece[], visit: (hourMs: number, micros: number, count: number) => void): void {
  let cell = Number.NaN;
  let rateMs = 0; // USD/hour × ms, summed over the cell
  // Partial cells are flushed through visitCell, not a closure made per call: this runs per line.
  for (const { fromMs, toMs, perHour } of pieces) {
    if (perHour === 0) continue;
    for (let t = fromMs; t < toMs; ) {
      const hour = Math.floor(t / HOUR_MS) * HOUR_MS;
      if (t === hour && hour + HOUR_MS <= toMs) {
        if (rateMs !== 0) {
          visitCell(visit, cell, rateMs);
          rateMs = 0;
          cell = Number.NaN;
        }
        const count = Math.floor((toMs - hour) / HOUR_MS);
        // The same expression as a partial cell's, so a whole hour rounds the same either way.
        const micros = Math.round((perHour * HOUR_MS) / 3.6);
        if (micros !== 0) visit(hour, micros, count);
        t = hour + count * HOUR_MS;
        continue;
      }
      const end = Math.min(toMs, hour + HOUR_MS);
      if (hour !== cell) {
        if (rateMs !== 0) {
          visitCell(visit, cell, rateMs);
          rateMs = 0;
        }
        cell = hour;
      }
      rateMs += perHour * (end - t);
      t = end;
    }
  }
  if (rateMs !== 0) visitCell(visit, cell, rateMs);
}

/** One partial hour's money: `rateMs` is USD/hour × ms summed over the cell. */
function visitCell(visit: (hourMs: number, micros: number, count: number) => void, cell: number, rateMs: number): void {
  // USD/h × ms ÷ 3.6e6 ms/h × 1e6 µUSD/USD = ÷ 3.6
  const micros = Math.round(rateMs / 3.6);
  if (micros !== 0) visit(cell, micros, 1);
}

/** Micro-dollars per field over the lines (already clipped to the window). */
export function accrueMicros(lines: BillingLine[]): Micros {
  const sums: Micros = {};
  for (const line of lines) {
    forEachHour(line.pieces, (_hour, micros, count) => {
      sums[line.field] = (sums[line.field] ?? 0) + micros * count;
    });
  }
  return sums;
}

/** Micro-dollars per resource id (or one key for all), per bucket start, per field. */
export type Usage = Map<string, Map<number, Micros>>;

export function usageByBucket(lines: BillingLine[], size: BucketSize, perResource = true): Usage {
  const usage: Usage = new Map();
  for (const line of lines) {
    const key = perResource ? line.id : '';
    let bucket = Number.NaN;
    let bucketEnd = Number.NaN;
    let sum = 0; // the line's micro-dollars in `bucket` so far
    forEachHour(line.pieces, (hour, micros, count) => {
      for (let at = hour, left = count; left > 0; ) {
        if (!(at >= bucket && at < bucketEnd)) {
          if (sum !== 0) addUsage(usage, key, bucket, line.field, sum);
          sum = 0;
          bucket = bucketFloor(at, size);
          bucketEnd = nextBucketStart(bucket, size);
        }
        const inBucket = Math.min(left, (bucketEnd - at) / HOUR_MS);
        sum += micros * inBucket;
        at += inBucket * HOUR_MS;
        left -= inBucket;
      }
    });
    if (sum !== 0) addUsage(usage, key, bucket, line.field, sum);
  }
  return usage;
}

/** Adds a line's micro-dollars in one bucket. */
function addUsage(usage: Usage, key: string, bucket: number, field: string, sum: number): void {
  let buckets = usage.get(key);
  if (!buckets) {
    buckets = new Map();
    usage.set(key, buckets);
  }
  const amounts = buckets.get(bucket) ?? {};
  amounts[field] = (amounts[field] ?? 0) + sum;
  buckets.set(bucket, amounts);
}

/** A route's amounts in USD: totalAmount first, then every field of the route (0 if absent). */
export function amountsOf(kind: BillingKind, micros: Micros): Record<string, number> {
  const fields = KIND_FIELDS[kind];
  const total = fields.length === 0 ? (micros.totalAmount ?? 0) : sumOf(fields.map((field) => micros[field] ?? 0));
  const amounts: Record<string, number> = { totalAmount: total / MICROS_PER_USD };
  for (const field of fields) amounts[field] = (micros[field] ?? 0) / MICROS_PER_USD;
  return amounts;
}

/** The `/v2/billing` amounts from each route's micro-dollars; the total is the components' sum. */
export function aggregateAmounts(byKind: Partial<Record<BillingKind, Micros>>): Record<string, number> {
  const components: Micros = Object.fromEntries(AGGREGATE_FIELDS.map((field) => [field, 0]));
  for (const [kind, micros] of Object.entries(byKind) as Array<[BillingKind, Micros]>) {
    for (const [field, value] of Object.entries(micros)) {
      const target = AGGREGATE_FIELD[kind][field];
      if (target !== undefined) components[target] = (components[target] ?? 0) + value;
    }
  }
  const amounts: Record<string, number> = { totalAmount: sumOf(Object.values(components)) / MICROS_PER_USD };
  for (const field of AGGREGATE_FIELDS) amounts[field] = (components[field] ?? 0) / MICROS_PER_USD;
  return amounts;
}

export function addMicros(into: Micros, from: Micros): Micros {
  for (const field in from) into[field] = (into[field] ?? 0) + (from[field] as number);
  return into;
}

function sumOf(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0);
}
