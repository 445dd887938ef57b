import { toIso } from '../clock.js';
import { addMicros, aggregateAmounts, amountsOf, KIND_FIELDS, MICROS_PER_USD, type Micros } from './billing.js';
import { HOUR_MS, type Window } from './buckets.js';
import type { BillingKind } from './pricing.js';
import { BILLING_KINDS, type World } from './world.js';

/**
 * Hourly billing replies, built from encoded hours. A daemon re-reads the same trailing hours
 * (48 h by default) every few minutes. An hour that ended before the world's present cannot
 * change (a Pod's past is never rewritten, and timelines are functions of
 * time), so its records are generated and encoded once, and a reply is the concatenation of its
 * hours' text. Money is rounded per line per UTC hour, so an hour computed on its own holds the
 * same micro-dollars as the same hour computed inside a longer window: the bytes are those that
 * encoding the whole reply at once would give (test/simulator/billing-hours.test.ts).
 */

/** One route's records for one UTC hour: their JSON and what the metadata needs. */
interface Hour {
  /** The records' JSON as UTF-8, comma-separated, without brackets; empty when the hour has no usage. */
  bytes: Buffer;
  count: number;
  /** Per-route: micro-dollars per field. Account route: per kind. */
  total: Micros;
  byKind: Partial<Record<BillingKind, Micros>>;
  ids: readonly string[];
}

/** What a run of hours adds up to in a reply's metadata. */
interface Sums {
  count: number;
  total: Micros;
  totalByKind: Partial<Record<BillingKind, Micros>>;
  ids: Set<string>;
}

/** What a route is, as far as its records go: its kind ('all' for `/v2/billing`) and its id field. */
export interface HourlyRoute {
  kind: BillingKind | 'all';
  filter?: string;
  unique?: string;
}

/**
 * How far back sealed hours are kept: the default trailing window (48 h) with room to spare. An
 * older hour is generated each time it is asked for (a backfill reads it once).
 */
const KEEP_MS = 72 * HOUR_MS;

/** A route's sealed hours, and the sums of the sealed hours its last reply began with. */
interface Kept {
  hours: Map<number, Hour>;
  /**
   * A daemon re-reads the same trailing window a few times an hour: the same sealed hours, whose
   * sums (at `large`, 96,000 ids to collect for the Pods route) are kept for the next reading.
   */
  sealed?: { startMs: number; endMs: number; sums: Sums };
}

/** Sealed hours per world and route; a world that is dropped takes its hours with it. */
const cache = new WeakMap<World, Map<HourlyRoute, Kept>>();

const RECORDS_OPEN = '{"records":[';
const METADATA_OPEN = '],"metadata":';
const COMMA = Buffer.from(',');

/**
 * The body of an hourly reply without an id filter, as JSON bytes, for the window (already
 * snapped to hours) at `t`: byte for byte what JSON.stringify gives for the records and metadata
 * generated in one go, encoded as UTF-8.
 */
export function hourlyReplyBytes(
  world: World,
  route: HourlyRoute,
  window: Window,
  t: number,
  echo: Record<string, unknown>,
): Buffer {
  const kept = keptOf(world, route);
  const { hours, sealedEnd } = hoursOf(kept, world, route, window, t);
  let sums: Sums;
  if (kept.sealed?.startMs === window.startMs && kept.sealed.endMs === sealedEnd) sums = copyOf(kept.sealed.sums);
  else {
    sums = { count: 0, total: {}, totalByKind: {}, ids: new Set() };
    for (const [hour, found] of hours) if (hour < sealedEnd) add(sums, found);
    kept.sealed = { startMs: window.startMs, endMs: sealedEnd, sums: copyOf(sums) };
  }
  for (const [hour, found] of hours) if (hour >= sealedEnd) add(sums, found);
  const metadata: Record<string, unknown> = { query: echo, recordCount: sums.count };
  if (route.kind === 'all') metadata.totals = aggregateAmounts(sums.totalByKind);
  else {
    if (route.unique !== undefined) metadata[route.unique] = sums.ids.size;
    metadata.totals = amountsOf(route.kind, sums.total);
  }
  const pieces: Buffer[] = [Buffer.from(RECORDS_OPEN)];
  for (const [, found] of hours) {
    if (found.count === 0) continue;
    if (pieces.length > 1) pieces.push(COMMA);
    pieces.push(found.bytes);
  }
  pieces.push(Buffer.from(`${METADATA_OPEN}${JSON.stringify(metadata)}}`));
  return Buffer.concat(pieces);
}

function add(sums: Sums, hour: Hour): void {
  if (hour.count === 0) return;
  sums.count += hour.count;
  addMicros(sums.total, hour.total);
  for (const [kind, micros] of Object.entries(hour.byKind) as Array<[BillingKind, Micros]>) {
    sums.totalByKind[kind] = addMicros(sums.totalByKind[kind] ?? {}, micros);
  }
  for (const id of hour.ids) sums.ids.add(id);
}

function copyOf(sums: Sums): Sums {
  const totalByKind: Partial<Record<BillingKind, Micros>> = {};
  for (const [kind, micros] of Object.entries(sums.totalByKind) as Array<[BillingKind, Micros]>) {
    totalByKind[kind] = { ...micros };
  }
  return { count: sums.count, total: { ...sums.total }, totalByKind, ids: new Set(sums.ids) };
}

function keptOf(world: World, route: HourlyRoute): Kept {
  let byRoute = cache.get(world);
  if (!byRoute) {
    byRoute = new Map();
    cache.set(world, byRoute);
  }
  let kept = byRoute.get(route);
  if (!kept) {
    kept = { hours: new Map() };
    byRoute.set(route, kept);
  }
  return kept;
}

/**
 * The window's hours in order: sealed ones from the cache, the rest generated now; and where
 * the run of sealed hours the window begins with ends (every hour before it is sealed and kept).
 */
function hoursOf(
  { hours: kept }: Kept,
  world: World,
  route: HourlyRoute,
  window: Window,
  t: number,
): { hours: Array<[number, Hour]>; sealedEnd: number } {
  // usage() brings the world to max(present, t) before it reads anything; so does this.
  const present = Math.max(world.now(), t);
  const keepFrom = present - KEEP_MS;
  for (const hour of kept.keys()) if (hour < keepFrom) kept.delete(hour);
  const end = Math.min(window.endMs, present);
  const missing: number[] = [];
  for (let hour = window.startMs; hour < end; hour += HOUR_MS) if (!kept.has(hour)) missing.push(hour);
  const fresh = missing.length === 0 ? new Map<number, Hour>() : generate(world, route, missing, end, t);
  const hours: Array<[number, Hour]> = [];
  let sealedEnd = window.startMs;
  for (let hour = window.startMs; hour < end; hour += HOUR_MS) {
    let found = kept.get(hour);
    if (!found) {
      found = fresh.get(hour) ?? EMPTY;
      if (hour + HOUR_MS <= present && hour >= keepFrom) kept.set(hour, found);
    }
    if (sealedEnd === hour && kept.has(hour)) sealedEnd = hour + HOUR_MS;
    hours.push([hour, found]);
  }
  return { hours, sealedEnd };
}

const EMPTY: Hour = { bytes: Buffer.alloc(0), count: 0, total: {}, byKind: {}, ids: [] };

/** The missing hours, generated in one pass over the span from the first to the last of them. */
function generate(world: World, route: HourlyRoute, missing: number[], end: number, t: number): Map<number, Hour> {
  const span = { startMs: missing[0] as number, endMs: Math.min((missing.at(-1) as number) + HOUR_MS, end) };
  const wanted = new Set(missing);
  const hours = new Map<number, Hour>();
  if (route.kind === 'all') {
    const byHour = new Map<number, Partial<Record<BillingKind, Micros>>>();
    for (const kind of BILLING_KINDS) {
      for (const [hour, micros] of world.totalsByHour(t, kind, span)) {
        if (!wanted.has(hour)) continue;
        const byKind = byHour.get(hour) ?? {};
        byKind[kind] = addMicros(byKind[kind] ?? {}, micros);
        byHour.set(hour, byKind);
      }
    }
    for (const [hour, byKind] of byHour) {
      const bytes = Buffer.from(`${boundsJson(hour)}${amountsJson(aggregateAmounts(byKind))}}`);
      hours.set(hour, { bytes, count: 1, total: {}, byKind, ids: [] });
    }
    return hours;
  }
  const kind = route.kind;
  const rows = world.usageByHour(t, kind, span, (hour) => wanted.has(hour));
  const idKey = route.filter === undefined ? undefined : `,${JSON.stringify(route.filter)}:`;
  const written = new Map<string, Written>();
  // Each record's tail, by position in the hour; the records are copied together as bytes.
  const tails: Buffer[] = [];
  const fields = KIND_FIELDS[kind].length === 0 ? ['totalAmount'] : KIND_FIELDS[kind];
  for (const [hour, list] of rows) {
    const { ids, micros } = inIdOrder(list.ids, list.micros);
    const total: Micros = {};
    const bounds = Buffer.from(boundsJson(hour));
    let length = ids.length - 1;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as string;
      const amounts = micros[i] as Micros;
      addMicros(total, amounts);
      let last = written.get(id);
      if (last === undefined) {
        last = { id: idKey === undefined ? '' : idKey + JSON.stringify(id), values: [], tail: EMPTY_BYTES };
        written.set(id, last);
      }
      if (!sameValues(last.values, fields, amounts)) {
        last.tail = Buffer.from(`${last.id}${kindAmountsJson(kind, amounts)}}`);
        last.values = fields.map((field) => amounts[field] ?? 0);
      }
      tails[i] = last.tail;
      length += bounds.length + last.tail.length;
    }
    hours.set(hour, {
      bytes: recordsBytes(bounds, tails, ids.length, length),
      count: ids.length,
      total,
      byKind: {},
      ids,
    });
  }
  return hours;
}

const EMPTY_BYTES = Buffer.alloc(0);
const COMMA_BYTE = 0x2c;

/**
 * An hour's records, comma-separated, each its bounds and then its tail, copied into one buffer
 * of the `length` they add up to: the reply's bytes, with no text in between to encode again.
 */
function recordsBytes(bounds: Buffer, tails: readonly Buffer[], count: number, length: number): Buffer {
  if (count === 0) return EMPTY_BYTES;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (i > 0) out[at++] = COMMA_BYTE;
    out.set(bounds, at);
    at += bounds.length;
    const tail = tails[i] as Buffer;
    out.set(tail, at);
    at += tail.length;
  }
  return out;
}

/**
 * A resource's id and amounts as last written. A resource mostly costs the same hour after hour
 * (a Pod running all day), so its amounts' text is written again only when they change.
 */
interface Written {
  /** `,"podId":"…"`, or '' on a route without ids. */
  id: string;
  /** The values kindAmountsJson read for the amounts, in the order of the route's fields. */
  values: number[];
  /** What follows a record's bounds, as UTF-8: the id, the amounts and the closing brace. */
  tail: Buffer;
}

/** Whether `micros` holds, field for field, the values `amounts` was last written from. */
function sameValues(values: number[], fields: readonly string[], micros: Micros): boolean {
  if (values.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) if ((micros[fields[i] as string] ?? 0) !== values[i]) return false;
  return true;
}

/**
 * The rows sorted by id. They mostly come in id order already (the world lists resources in the
 * scenario's order): rows found sorted are returned as they are.
 */
function inIdOrder(ids: string[], micros: Micros[]): { ids: string[]; micros: Micros[] } {
  let sorted = true;
  for (let i = 1; i < ids.length && sorted; i++) sorted = (ids[i - 1] as string) < (ids[i] as string);
  if (sorted) return { ids, micros };
  const order = ids.map((_, i) => i);
  order.sort((a, b) => {
    const x = ids[a] as string;
    const y = ids[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return { ids: order.map((i) => ids[i] as string), micros: order.map((i) => micros[i] as Micros) };
}

/**
 * `amountsJson(amountsOf(kind, micros))` written straight from the micro-dollars: totalAmount (the
 * fields' sum, added in their order as amountsOf adds them), then each field of the route.
 */
function kindAmountsJson(kind: BillingKind, micros: Micros): string {
  const fields = KIND_FIELDS[kind];
  if (fields.length === 0) return `,"totalAmount":${(micros.totalAmount ?? 0) / MICROS_PER_USD}`;
  let sum = 0;
  let rest = '';
  for (const field of fields) {
    const value = micros[field] ?? 0;
    sum += value;
    rest += `,"${field}":${value / MICROS_PER_USD}`;
  }
  return `,"totalAmount":${sum / MICROS_PER_USD}${rest}`;
}

/**
 * A record is written by hand, as JSON.stringify would write it (same keys in the same order;
 * a finite number's JSON is its String()), from parts an hour's records share.
 */
function boundsJson(hour: number): string {
  return `{"startTime":${JSON.stringify(toIso(hour))},"endTime":${JSON.stringify(toIso(hour + HOUR_MS))}`;
}

/** `,"totalAmount":1.5,"gpuAmount":1.2,…` for amounts keyed by plain field names, in their order. */
function amountsJson(amounts: Record<string, number>): string {
  let json = '';
  for (const field in amounts) json += `,"${field}":${amounts[field] as number}`;
  return json;
}
