import { ApiError } from '../api/index.js';
import type { BillingRecordInput, ReportedBucket } from '../db/billing.js';
import { textDigest } from '../db/billing-digest.js';

/**
 * A record of a re-read answer as its text, unparsed: a re-read mostly reports what is stored,
 * and a bucket whose text hashes to its stored digest needs no parse at all. `startTime` is read
 * from the text (startOf) to cut the answer into buckets; `index` is its place in the answer.
 */
export interface RecordText {
  startTime: number;
  text: string;
  index: number;
}

/**
 * A record's text does not say plainly which bucket it is in (startOf), or its parse says
 * another: the page must be read again and stored from its parsed records (billing-routes.ts).
 */
export class UnreadableTextError extends Error {
  constructor(readonly index: number) {
    super(`billing records[${index}]: its startTime could not be read from its text`);
    this.name = 'UnreadableTextError';
  }
}

const START = '"startTime":"';
const BACKSLASH = 92;
const QUOTE = 34;
/** The last start read, and its time: an answer's records come a bucket at a time. */
let lastStart = '';
let lastStartMs = Number.NaN;

/**
 * The start of a record's bucket, read from its text without parsing it: the first
 * `"startTime":"` it holds, as the API writes it; a record written otherwise (spaces, escapes) is
 * parsed for it, and one that does not parse or has no such time is an UnreadableTextError. The
 * reading is not trusted: every record parsed is checked against it (parseBucket: a duplicate
 * key shows there), and a bucket skipped unparsed is byte for byte the text of one that was
 * parsed, checked and stored.
 */
export function startOf(text: string, index: number): number {
  const at = text.indexOf(START);
  if (at > 0 && text.charCodeAt(at - 1) !== BACKSLASH) {
    const from = at + START.length;
    if (lastStart !== '' && text.startsWith(lastStart, from) && text.charCodeAt(from + lastStart.length) === QUOTE) {
      return lastStartMs;
    }
    const end = text.indexOf('"', from);
    if (end > from) {
      const value = text.slice(from, end);
      if (!value.includes('\\')) {
        const ms = parseTime(value);
        if (Number.isFinite(ms)) {
          lastStart = value;
          lastStartMs = ms;
          return ms;
        }
      }
    }
  }
  return parsedStartOf(text, index);
}

/** startOf for a record written otherwise (spaced, escaped): its parse says, as a parse would anyway. */
function parsedStartOf(text: string, index: number): number {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    // The whole read names what is wrong with it.
    throw new UnreadableTextError(index);
  }
  const value = (record as { startTime?: unknown } | null)?.startTime;
  const ms = typeof value === 'string' ? parseTime(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new UnreadableTextError(index);
  return ms;
}

/** The records of one slice, by bucket (they come a bucket at a time), each with its text's digest. */
export function bucketsOfTexts(
  op: string,
  items: readonly RecordText[],
  check: (record: unknown, index: number) => BillingRecordInput,
): ReportedBucket[] {
  const buckets: ReportedBucket[] = [];
  for (let first = 0; first < items.length; ) {
    const startTime = (items[first] as RecordText).startTime;
    // The bucket's text as it stood in the answer's array.
    let joined = (items[first] as RecordText).text;
    let end = first + 1;
    for (; end < items.length && (items[end] as RecordText).startTime === startTime; end++) {
      joined += `,${(items[end] as RecordText).text}`;
    }
    buckets.push(new TextBucket(op, startTime, joined, items, first, end, check));
    first = end;
  }
  return buckets;
}

/**
 * A bucket read as text, parsed only if asked. A class, not an object with a closure: a re-read
 * makes one per bucket of its window, nearly all never parsed, and a closure per bucket cost more
 * than the bucket's digest under the replay's loader (which names every closure it makes).
 */
class TextBucket implements ReportedBucket {
  readonly digest: number;

  constructor(
    private readonly op: string,
    readonly startTime: number,
    private readonly joined: string,
    private readonly items: readonly RecordText[],
    private readonly first: number,
    private readonly end: number,
    private readonly check: (record: unknown, index: number) => BillingRecordInput,
  ) {
    this.digest = textDigest(joined);
  }

  records(): BillingRecordInput[] {
    const texts = this.items.slice(this.first, this.end);
    return parseBucket(this.op, this.startTime, this.joined, texts, this.check);
  }
}

function parseBucket(
  op: string,
  startTime: number,
  joined: string,
  texts: readonly RecordText[],
  check: (record: unknown, index: number) => BillingRecordInput,
): BillingRecordInput[] {
  let values: unknown[];
  try {
    values = JSON.parse(`[${joined}]`) as unknown[];
  } catch {
    values = texts.map(({ text, index }) => {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        const detail = `records[${index}] is not valid JSON (${(error as Error).message})`;
        throw new ApiError({ kind: 'contract', op, message: `response body is not valid JSON: ${detail}` });
      }
    });
  }
  return values.map((value, k) => {
    const index = (texts[k] as RecordText).index;
    const record = check(value, index);
    // The bucket was cut by the text: a parse that disagrees means the text misled it.
    if (record.startTime !== startTime) throw new UnreadableTextError(index);
    return record;
  });
}

/**
 * Date.parse, remembered: an answer's records share a few dozen bucket bounds, and parsing two
 * dates per record was a tenth of a large re-read's decoding.
 */
const parsedTimes = new Map<string, number>();
export function parseTime(text: string): number {
  let ms = parsedTimes.get(text);
  if (ms === undefined) {
    if (parsedTimes.size >= 10_000) parsedTimes.clear();
    ms = Date.parse(text);
    parsedTimes.set(text, ms);
  }
  return ms;
}
