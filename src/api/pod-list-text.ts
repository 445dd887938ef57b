import { type ParsedList, parseItem } from './parse.js';
import { checkRuntime, newUptimeAt } from './pod-runtime-check.js';
import { Pod, type PodRuntime } from './schemas.js';

/**
 * `GET /pods` read from its text, Pod by Pod, reusing last answer's work. A `large` account
 * lists 2,000 Pods (1.9 MB) every minute; decoding the whole answer and running the Pod schema
 * over every record was a fifth of a steady hour's CPU and much of its garbage. Yet from one
 * minute to the next a stopped Pod's record is the same text, and a running Pod's differs only
 * in `runtime`. So each record's text is cut around its `runtime` value: when the text before
 * and after it is byte for byte last answer's, last answer's checked Pod is kept, and only a
 * `runtime` that changed is decoded and checked (the Pod schema checks each field on its own, so
 * the rest of the record's verdict still holds). Anything else (a record seen for the first
 * time, a rejected one, a body of another shape) goes the usual way, so the items, the rejected
 * Pods (`pods[i].field`) and the errors are exactly what JSON.parse and parseItems give.
 */

/** A `GET /pods` body read by PodListReader: the list already parsed, Pod by Pod. */
export class DecodedPodList {
  constructor(readonly list: ParsedList<Pod>) {}
}

/** Each Pod kept with a new runtime, to the Pod its record outside runtime was first read into. */
const records = new WeakMap<Pod, object>();

/**
 * What stays the same object for as long as a Pod's record, runtime aside, is the same text from
 * one answer to the next: what a caller makes of those fields alone (the stored row) can be kept
 * by it. A Pod not read by a PodListReader is its own.
 */
export function recordOf(pod: Pod): object {
  return records.get(pod) ?? pod;
}

/** A record of an answer, cut around its runtime value. */
interface Kept {
  /** The text up to runtime's value (`{"id":…,"runtime":`); a copy, not a slice of the answer. */
  head: string;
  /** The text after runtime's value, up to the record's closing brace; a copy too. */
  tail: string;
  runtime: string;
  pod: Pod;
  /** Its place in its answer. */
  index: number;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const HEAD = '"pods"';
const RUNTIME = '"runtime"';

/** One reader per client (so per account): what it keeps is the last answer's Pods. */
export class PodListReader {
  /** Last answer's records in order (undefined where one was rejected), and by head once asked. */
  private order: Array<Kept | undefined> = [];
  private byHead: Map<string, Kept> | undefined;
  /** Where this answer's records sit in last answer's: a Pod created or gone shifts the rest. */
  private shift = 0;

  /**
   * JSON.parse's stand-in for a `GET /pods` body: a DecodedPodList when the body is the usual
   * `{"pods":[{…},…]}`, otherwise JSON.parse's own result (or its SyntaxError).
   */
  decode(text: string): unknown {
    return this.read(text) ?? JSON.parse(text);
  }

  /** The list, or undefined when the body is not of the usual shape or not valid JSON. */
  private read(text: string): DecodedPodList | undefined {
    let at = skipSpace(text, 0);
    if (text.charCodeAt(at) !== OPEN_BRACE) return undefined;
    at = skipSpace(text, at + 1);
    if (!text.startsWith(HEAD, at)) return undefined;
    at = skipSpace(text, at + HEAD.length);
    if (text.charCodeAt(at) !== COLON) return undefined;
    at = skipSpace(text, at + 1);
    if (text.charCodeAt(at) !== OPEN_BRACKET) return undefined;
    at = skipSpace(text, at + 1);
    const list: ParsedList<Pod> = { items: [], rejected: [] };
    const next: Array<Kept | undefined> = [];
    this.shift = 0;
    if (text.charCodeAt(at) === CLOSE_BRACKET) at = skipSpace(text, at + 1);
    else {
      for (let index = 0; ; index++) {
        const end = this.record(text, at, index, list, next);
        if (end === undefined) return undefined;
        at = skipSpace(text, end);
        const after = text.charCodeAt(at);
        at = skipSpace(text, at + 1);
        if (after === CLOSE_BRACKET) break;
        if (after !== COMMA) return undefined;
      }
    }
    if (text.charCodeAt(at) !== CLOSE_BRACE || skipSpace(text, at + 1) !== text.length) return undefined;
    this.order = next;
    this.byHead = undefined;
    return new DecodedPodList(list);
  }

  /** Reads the record at `start` into `list` and `next`; returns where it ends, or undefined to give up. */
  private record(
    text: string,
    start: number,
    index: number,
    list: ParsedList<Pod>,
    next: Array<Kept | undefined>,
  ): number | undefined {
    // Most records are last answer's record at the same place: compared there, without a scan.
    const guess = this.order[index + this.shift];
    const reused = guess === undefined ? undefined : reuse(text, start, guess, index, list, next);
    if (reused !== undefined) return reused;
    const cut = cutRecord(text, start);
    if (cut === undefined) return undefined;
    const { runtimeStart, runtimeEnd, end } = cut;
    if (runtimeStart >= 0) {
      const last = this.lastByHead().get(text.slice(start, runtimeStart));
      const found = last === undefined ? undefined : reuse(text, start, last, index, list, next);
      if (last !== undefined && found !== undefined) {
        this.shift = last.index - index;
        return found;
      }
    }
    const pod = this.full(text.slice(start, end), index, list);
    if (pod === false) return undefined;
    next[index] =
      pod === undefined || runtimeStart < 0
        ? undefined
        : {
            head: own(text.slice(start, runtimeStart)),
            tail: own(text.slice(runtimeEnd, end)),
            runtime: text.slice(runtimeStart, runtimeEnd),
            pod,
            index,
          };
    return end;
  }

  /** Last answer's records by head, for a record not found at its place (made once per answer). */
  private lastByHead(): Map<string, Kept> {
    if (this.byHead === undefined) {
      this.byHead = new Map();
      for (const kept of this.order) if (kept !== undefined) this.byHead.set(kept.head, kept);
    }
    return this.byHead;
  }

  /**
   * A record decoded and checked whole, as parseItems would: its Pod, undefined when the schema
   * rejected it (named in `list.rejected`), false when its text is not JSON.
   */
  private full(text: string, index: number, list: ParsedList<Pod>): Pod | undefined | false {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return false;
    }
    const result = parseItem(Pod, 'pods', index, raw);
    if (result.ok) {
      list.items.push(result.data);
      return result.data;
    }
    list.rejected.push(result.rejected);
    return undefined;
  }
}

/**
 * The record at `start` if it is `last`'s text with any runtime value: its Pod (last's, with the
 * new runtime checked) goes into `list` and `next`; returns where the record ends. Undefined when
 * the text differs outside runtime, or the runtime is not JSON or not a runtime (the record is
 * then read whole, so a rejection reads as parseItems writes it). The record is JSON: last's was,
 * and a JSON value took the place of a JSON value.
 */
function reuse(
  text: string,
  start: number,
  last: Kept,
  index: number,
  list: ParsedList<Pod>,
  next: Array<Kept | undefined>,
): number | undefined {
  // A slice compared with === (a memory compare) is several times faster than startsWith here.
  if (text.slice(start, start + last.head.length) !== last.head) return undefined;
  const runtimeStart = start + last.head.length;
  let pod = last.pod;
  // The usual minutes, found without scanning the runtime: a stopped Pod's record is the same
  // text (a runtime value followed by the same delimiter is the same value), and a running Pod's
  // differs in its uptime alone.
  let runtimeEnd = runtimeStart + last.runtime.length;
  if (text.slice(runtimeStart, runtimeEnd) !== last.runtime || !tailAt(text, runtimeEnd, last)) {
    const swapped = newUptimeAt(text, runtimeStart, last.runtime, last.pod.runtime);
    if (swapped !== undefined && tailAt(text, swapped.end, last)) {
      runtimeEnd = swapped.end;
      pod = withRuntime(last.pod, swapped.runtime);
    } else {
      runtimeEnd = valueEnd(text, runtimeStart);
      if (runtimeEnd < 0 || !tailAt(text, runtimeEnd, last)) return undefined;
      const checked = runtimeOf(text.slice(runtimeStart, runtimeEnd));
      if (checked === undefined) return undefined;
      pod = withRuntime(last.pod, checked);
    }
  }
  // Kept as a slice of this answer (not copied: it changes every minute for a running Pod), so
  // what the kept records hold of the answers is this one alone.
  const runtime = text.slice(runtimeStart, runtimeEnd);
  list.items.push(pod);
  next[index] = { head: last.head, tail: last.tail, runtime, pod, index };
  return runtimeEnd + last.tail.length;
}

/** Whether `last`'s text after its runtime is at `at`. */
function tailAt(text: string, at: number, last: Kept): boolean {
  return text.slice(at, at + last.tail.length) === last.tail;
}

/** `pod` with another runtime, its record (recordOf) still the one its fields were read from. */
function withRuntime(pod: Pod, runtime: PodRuntime | null): Pod {
  const next = { ...pod, runtime };
  records.set(next, recordOf(pod));
  return next;
}

/** A runtime's text decoded and checked: undefined when it is not JSON or not a runtime. */
function runtimeOf(text: string): PodRuntime | null | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  return checkRuntime(raw);
}

/**
 * Where the value at `start` ends: the comma or closing brace after it, outside any string or
 * nesting of its own; -1 when the text ends first.
 */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      if (at < 0) return -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === 0) return at;
      depth -= 1;
    } else if (code === COMMA && depth === 0) return at;
  }
  return -1;
}

/**
 * A copy of a piece of the answer: a slice would keep the whole answer it was cut from alive for
 * as long as the piece is kept (a stopped Pod's text is kept for as long as it stays stopped).
 */
function own(piece: string): string {
  return JSON.parse(JSON.stringify(piece)) as string;
}

/**
 * Where the object at `start` ends, and where its own `runtime` member's value starts and ends
 * (the text between the colon and the next comma or brace; -1 when it has none, or has two, or
 * has a key written with escapes, which could spell `runtime` too). Tracks strings, escapes and
 * nesting, nothing more: whether the record is JSON is for JSON.parse to say. Undefined when the
 * value at `start` is not an object or the text ends inside it.
 */
function cutRecord(text: string, start: number): { runtimeStart: number; runtimeEnd: number; end: number } | undefined {
  if (text.charCodeAt(start) !== OPEN_BRACE) return undefined;
  let depth = 1;
  let expectKey = true;
  let inRuntime = false;
  let runtimeStart = -1;
  let runtimeEnd = -1;
  let plain = true;
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const close = stringEnd(text, at);
      if (close < 0) return undefined;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (hasEscape(text, at, close)) plain = false;
        else if (close - at + 1 === RUNTIME.length && text.startsWith(RUNTIME, at)) {
          if (runtimeStart !== -1 || inRuntime) plain = false;
          const colon = text.indexOf(':', close);
          if (colon < 0) return undefined;
          inRuntime = true;
          runtimeStart = colon + 1;
          at = colon;
          continue;
        }
      }
      at = close;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) {
        if (inRuntime) runtimeEnd = at;
        const split = plain && runtimeStart !== -1 && runtimeEnd !== -1;
        return split ? { runtimeStart, runtimeEnd, end: at + 1 } : { runtimeStart: -1, runtimeEnd: -1, end: at + 1 };
      }
    } else if (code === COMMA && depth === 1) {
      expectKey = true;
      if (inRuntime) {
        runtimeEnd = at;
        inRuntime = false;
      }
    }
  }
  return undefined;
}

/** Whether the string between these quotes has an escape (keys are short: a loop beats a search). */
function hasEscape(text: string, open: number, close: number): boolean {
  for (let at = open + 1; at < close; at++) if (text.charCodeAt(at) === BACKSLASH) return true;
  return false;
}

/** The index of the quote closing the string opened at `open`, or -1 when the text ends first. */
function stringEnd(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close > 0) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

function skipSpace(text: string, at: number): number {
  let next = at;
  for (;;) {
    const code = text.charCodeAt(next);
    // JSON's whitespace: space, tab, line feed, carriage return.
    if (code !== 32 && code !== 9 && code !== 10 && code !== 13) return next;
    next += 1;
  }
}
