import type { z } from 'zod';
import { regexes } from 'zod/v4/core';
import { ApiError } from './errors.js';
import { JsonRecordsDecoder, JsonStreamError } from './json-records.js';
import { parseBody, parseBodyAt } from './parse.js';
import { DateTime } from './schemas/common.js';

/** zod's own test for `z.iso.datetime({ offset: true })`, so the hand check accepts nothing zod would not. */
const RFC3339 = regexes.datetime({ offset: true, local: false, precision: null });

type FieldCheck = (value: unknown) => boolean;

const isNumber: FieldCheck = (value) => typeof value === 'number';
const isString: FieldCheck = (value) => typeof value === 'string';
// Upper-case only: DateTime upper-cases before its check, so for these strings it is the identity.
const isDateTime: FieldCheck = (value) => {
  if (typeof value !== 'string') return false;
  if (validTimes.has(value)) return true;
  if (!RFC3339.test(value)) return false;
  if (validTimes.size >= 10_000) validTimes.clear();
  validTimes.add(value);
  return true;
};
/**
 * Times that passed the check: the records of an answer share a few dozen bucket bounds, and
 * the expression (leap years included) ran twice for each of ~100,000 records per re-read.
 */
const validTimes = new Set<string>();

interface BillingSchemaParts {
  fields: Array<[string, FieldCheck]>;
  record: z.ZodType;
  metadata: z.ZodType;
}

const partsBySchema = new WeakMap<z.ZodType, BillingSchemaParts>();

/** The checks a billing schema's records make, read once from the schema itself. */
function partsOf(schema: z.ZodType): BillingSchemaParts {
  let parts = partsBySchema.get(schema);
  if (parts) return parts;
  const shape = (schema as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const records = shape.records as unknown as z.ZodArray<z.ZodObject>;
  const fields = Object.entries(records.element.shape as Record<string, z.ZodType>).map(
    ([field, check]): [string, FieldCheck] => {
      if (check === DateTime) return [field, isDateTime];
      const type = check._zod.def.type;
      if (type === 'number') return [field, isNumber];
      if (type === 'string') return [field, isString];
      throw new Error(`billing response schema: no hand check for records[].${field} (${type})`);
    },
  );
  parts = { fields, record: records.element as z.ZodType, metadata: shape.metadata as z.ZodType };
  partsBySchema.set(schema, parts);
  return parts;
}

/**
 * Parses a v2 billing answer. Its records are most of the daemon's input (~90,000 in one
 * re-read of a large account), and zod builds a copy of every one of them: the records are
 * checked by hand instead, against the fields the schema requires, and kept as decoded. When
 * anything is off, the schema parses the whole body, so the error names the field path exactly
 * as for every other route.
 */
export function parseBillingBody<S extends z.ZodType>(schema: S, body: unknown, op: string): z.output<S> {
  const { fields, metadata } = partsOf(schema);
  if (body === null || typeof body !== 'object') return parseBody(schema, body, op);
  const { records } = body as { records?: unknown };
  if (!Array.isArray(records)) return parseBody(schema, body, op);
  for (const record of records) {
    if (record === null || typeof record !== 'object') return parseBody(schema, body, op);
    for (const [field, check] of fields) {
      if (!check((record as Record<string, unknown>)[field])) return parseBody(schema, body, op);
    }
  }
  const parsed = metadata.safeParse((body as { metadata?: unknown }).metadata);
  if (!parsed.success) return parseBody(schema, body, op);
  return { ...body, records, metadata: parsed.data } as z.output<S>;
}

export type BillingMetadataOf<S extends z.ZodType> = z.output<S> extends { metadata: infer M } ? M : never;

/** A record of a billing answer as the schema types it. */
export type BillingRecordOf<S extends z.ZodType> = z.output<S> extends { records: Array<infer R> } ? R : never;

/**
 * Checks one record of a streamed billing answer, `records[index]` of the body: kept as decoded
 * when the hand checks pass, else what the schema makes of it (it upper-cases times), else a
 * contract error naming the field as parseBillingBody's would.
 */
export function checkBillingRecord<S extends z.ZodType>(
  schema: S,
  record: unknown,
  index: number,
  op: string,
): BillingRecordOf<S> {
  return checkedRecord(partsOf(schema), record, index, op) as BillingRecordOf<S>;
}

/** checkBillingRecord with the schema's checks already at hand (a streamed piece holds hundreds of records). */
function checkedRecord(parts: BillingSchemaParts, record: unknown, index: number, op: string): unknown {
  if (record !== null && typeof record === 'object') {
    let ok = true;
    for (const [field, check] of parts.fields) {
      if (!check((record as Record<string, unknown>)[field])) {
        ok = false;
        break;
      }
    }
    if (ok) return record;
  }
  return parseBodyAt(parts.record, record, op, ['records', index]);
}

/** The metadata of a streamed billing answer, from the members decoded beside its records. */
export function checkBillingMetadata<S extends z.ZodType>(
  schema: S,
  streamed: { sawArray: boolean; members: Record<string, unknown> },
  op: string,
): BillingMetadataOf<S> {
  if (!streamed.sawArray) {
    throw new ApiError({ kind: 'contract', op, message: 'response body records: missing, expected array' });
  }
  return parseBodyAt(partsOf(schema).metadata, streamed.members.metadata, op, ['metadata']) as BillingMetadataOf<S>;
}

/**
 * Where a streamed billing answer goes. `records` takes them checked; a sink with `texts` takes
 * each record's text instead, unparsed and unchecked, and must parse and check (checkBillingRecord)
 * every record it uses: a re-read mostly reports what is stored, and the text alone can tell.
 */
export interface BillingRecordSink<R> {
  /** `first` is the index of `records[0]` in the answer, for errors that name a record. */
  records(records: R[], first: number): void | Promise<void>;
  texts?(texts: string[], first: number): void | Promise<void>;
}

/**
 * Decodes a streamed billing answer as it arrives, handing its records to the sink a piece at a
 * time (awaiting it, so a slow sink slows the reading, not the memory); returns the metadata once
 * the body is whole. A malformed or cut body is a contract error naming the record or field and
 * the offset.
 */
export async function consumeBillingText<S extends z.ZodType>(
  schema: S,
  sink: BillingRecordSink<BillingRecordOf<S>>,
  text: AsyncIterable<string>,
  op: string,
): Promise<BillingMetadataOf<S>> {
  const raw = sink.texts !== undefined;
  const decoder = new JsonRecordsDecoder('records', raw);
  try {
    for await (const chunk of text) {
      const first = decoder.count;
      const decoded = decoder.push(chunk);
      if (decoded.length === 0) continue;
      if (raw) await sink.texts?.(decoded as string[], first);
      else {
        const parts = partsOf(schema);
        for (let k = 0; k < decoded.length; k++) decoded[k] = checkedRecord(parts, decoded[k], first + k, op);
        await sink.records(decoded as BillingRecordOf<S>[], first);
      }
    }
    return checkBillingMetadata(schema, decoder.end(), op);
  } catch (error) {
    if (!(error instanceof JsonStreamError)) throw error;
    throw new ApiError({ kind: 'contract', op, message: `response body is not valid JSON: ${error.message}` });
  }
}
