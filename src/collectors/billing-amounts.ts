/**
 * The amounts of a billing record (every number field named `*Amount`), as an object and as the
 * JSON text stored in billing_records.amounts. A Pod bills the same amounts hour after hour
 * while it runs, so a backfill's records repeat a few hundred distinct amounts: a record whose
 * amounts equal ones seen before gets their object and text back, shared (neither is ever
 * changed once made), instead of a JSON.stringify of its own.
 */

/** The amounts of one record: the object (read-only) and JSON.stringify of it. */
export interface Amounts {
  readonly amounts: Readonly<Record<string, number>>;
  readonly text: string;
}

interface Known extends Amounts {
  readonly fields: readonly string[];
  readonly values: readonly number[];
}

/** Amounts seen, by their first value: bounded, dropped whole when full (a cache, not a record). */
const known = new Map<number, Known[]>();
let knownCount = 0;
const MAX_KNOWN = 4_096;

/** The record's fields and values of the amounts being read, reused from record to record. */
const fields: string[] = [];
const values: number[] = [];

/** The record's amounts, in the record's field order, exactly as JSON.stringify would write them. */
export function amountsOf(record: Readonly<Record<string, unknown>>): Amounts {
  fields.length = 0;
  values.length = 0;
  for (const field in record) {
    const value = record[field];
    if (typeof value === 'number' && field.endsWith('Amount')) {
      fields.push(field);
      values.push(value);
    }
  }
  const key = fields.length > 0 ? (values[0] as number) : Number.NaN;
  const same = known.get(key);
  if (same !== undefined) {
    for (const candidate of same) if (equal(candidate)) return candidate;
  }
  const amounts: Record<string, number> = {};
  for (let i = 0; i < fields.length; i++) amounts[fields[i] as string] = values[i] as number;
  const made: Known = { amounts, text: JSON.stringify(amounts), fields: [...fields], values: [...values] };
  if (knownCount >= MAX_KNOWN) {
    known.clear();
    knownCount = 0;
  }
  const list = known.get(key);
  if (list === undefined) known.set(key, [made]);
  else list.push(made);
  knownCount++;
  return made;
}

/** Same fields in the same order with the same values (Object.is: -0 is not 0 in the object handed out). */
function equal(candidate: Known): boolean {
  if (candidate.fields.length !== fields.length) return false;
  for (let i = 0; i < fields.length; i++) {
    if (candidate.fields[i] !== fields[i] || !Object.is(candidate.values[i], values[i])) return false;
  }
  return true;
}
