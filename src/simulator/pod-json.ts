import { type PodState, podRecord, utilizationAt } from './pod-view.js';
import type { Utilization } from './scenario.js';
import { indexAt } from './timeline.js';
import type { PodStatus } from './v2-types.js';

/**
 * A Pod's record as JSON bytes, byte for byte `JSON.stringify(podRecord(pod, t))` in UTF-8, from
 * parts kept per Pod. A `large` account lists 2,000 Pods every virtual minute, and almost all of
 * a record stays the same from one minute to the next: everything but `runtime` changes only with the Pod's status or start (kept while the Pod's
 * history entry in force is the same one), and `runtime` is its uptime (a number) and the load
 * the scenario's timeline holds at `t` (encoded once per timeline entry). The parts are kept as
 * bytes, so a list is copied together rather than joined as text and encoded again (1.8 MB a
 * minute at `large`). test/simulator/pod-json.test.ts holds it to JSON.stringify
 * through starts, stops, restarts, telemetry gaps and multi-GPU Pods.
 */

interface Parts {
  /** The lifecycle's version these parts were made at (any action can rewrite the history). */
  version: number;
  /** The span of `t` over which the history entry in force, so everything below, stays the same. */
  fromMs: number;
  toMs: number;
  status: PodStatus;
  /** When the running container started; undefined when the Pod is not RUNNING. */
  runningSince: number | undefined;
  /** The record with `runtime: null`: what is sent when not running or in a telemetry gap. */
  idle: Buffer;
  /** The record up to the uptime's digits: `{"id":…,"runtime":{"uptime":`. */
  head: Buffer;
  /** The record after `runtime`'s value: `,"createdAt":…}`, as text, to make `rest` from. */
  tail: string;
  /** The load `rest` encodes, by identity (a timeline entry's value). */
  load?: Utilization;
  /**
   * The utilization timeline's value over `[loadFromMs, loadToMs)`: a list reads every Pod's load
   * each minute, from a timeline of a month's entries.
   */
  loadNow?: Utilization | null;
  loadFromMs: number;
  loadToMs: number;
  /** `,"gpus":[…],…,"ports":[…]}` and the tail: everything after the uptime's digits. */
  rest?: Buffer;
}

const kept = new WeakMap<PodState, Parts>();

const RUNTIME_KEY = ',"runtime":';
const UPTIME_OPEN = '{"uptime":';
const COMMA = 0x2c;

/**
 * The Pods that exist at `t` (cluster members only with `includeClusterPods`), as the v2 list's
 * JSON body `{"pods":[…]}`, in one buffer: each record is its kept bytes with the uptime's
 * digits written between them.
 */
export function podListBytes(pods: readonly PodState[], t: number, includeClusterPods: boolean): Buffer {
  const records: Record[] = [];
  let length = LIST_OPEN.length + LIST_CLOSE.length;
  for (const pod of pods) {
    if (t < pod.spec.createdAtMs || (!includeClusterPods && pod.spec.cluster)) continue;
    const parts = partsAt(pod, t);
    if (parts.status === 'TERMINATED') continue;
    const record = recordOf(pod, parts, t);
    length += (records.length > 0 ? 1 : 0) + recordLength(record);
    records.push(record);
  }
  const out = Buffer.allocUnsafe(length);
  let at = out.write(LIST_OPEN, 0, 'latin1');
  for (let index = 0; index < records.length; index++) {
    if (index > 0) out[at++] = COMMA;
    at = writeRecord(out, at, records[index] as Record);
  }
  out.write(LIST_CLOSE, at, 'latin1');
  return out;
}

const LIST_OPEN = '{"pods":[';
const LIST_CLOSE = ']}';

/** A record as written: its head, then (when it has a runtime) the uptime's digits and the rest. */
interface Record {
  head: Buffer;
  uptime?: string;
  rest?: Buffer;
}

function recordLength({ head, uptime, rest }: Record): number {
  return head.length + (uptime === undefined ? 0 : uptime.length + (rest as Buffer).length);
}

function writeRecord(out: Buffer, start: number, { head, uptime, rest }: Record): number {
  let at = start;
  out.set(head, at);
  at += head.length;
  if (uptime === undefined) return at;
  at += out.write(uptime, at, 'latin1');
  out.set(rest as Buffer, at);
  return at + (rest as Buffer).length;
}

function recordOf(pod: PodState, parts: Parts, t: number): Record {
  const since = parts.runningSince;
  if (since === undefined) return { head: parts.idle };
  const load = loadAt(pod, parts, t);
  if (load === null) return { head: parts.idle };
  if (parts.load !== load || parts.rest === undefined) {
    // Encoded from the very record podRecord builds, so the text is JSON.stringify's own.
    const runtime = JSON.stringify(podRecord(pod, t).runtime);
    parts.rest = Buffer.from(`${runtime.slice(runtime.indexOf(','))}${parts.tail}`);
    parts.load = load;
  }
  // An integer's JSON is its String(), ASCII digits (and a sign), so latin1 writes it as UTF-8 would.
  return { head: parts.head, uptime: String(Math.floor((t - since) / 1000)), rest: parts.rest };
}

/** utilizationAt(pod.spec, t), looked up in the timeline only when `t` leaves the entry last found. */
function loadAt(pod: PodState, parts: Parts, t: number): Utilization | null {
  if (t >= parts.loadFromMs && t < parts.loadToMs) return parts.loadNow as Utilization | null;
  const timeline = pod.spec.utilization;
  const index = indexAt(timeline, t);
  parts.loadNow = utilizationAt(pod.spec, t);
  parts.loadFromMs = index < 0 ? Number.NEGATIVE_INFINITY : (timeline[index] as { atMs: number }).atMs;
  parts.loadToMs = (timeline[index + 1] as { atMs: number } | undefined)?.atMs ?? Number.POSITIVE_INFINITY;
  return parts.loadNow;
}

/** The Pod's parts at `t`: kept while the lifecycle is unchanged and `t` is in the same history entry. */
function partsAt(pod: PodState, t: number): Parts {
  const { lifecycle } = pod;
  const parts = kept.get(pod);
  if (parts !== undefined && parts.version === lifecycle.version && t >= parts.fromMs && t < parts.toMs) {
    return parts;
  }
  const made = partsOf(pod, t);
  kept.set(pod, made);
  return made;
}

/** Head, tail and the record without runtime, cut from the record encoded with runtime null. */
function partsOf(pod: PodState, t: number): Parts {
  const { lifecycle } = pod;
  const history = lifecycle.history;
  const index = indexAt(history, t);
  const text = JSON.stringify({ ...podRecord(pod, t), runtime: null });
  // Keys after runtime are createdAt, startedAt and the gpu, cpu and cluster objects: none holds
  // a `"runtime":` key, so the last one found is the record's own.
  const at = text.lastIndexOf(`${RUNTIME_KEY}null`);
  const head = text.slice(0, at + RUNTIME_KEY.length);
  return {
    version: lifecycle.version,
    fromMs: index < 0 ? Number.NEGATIVE_INFINITY : (history[index] as { atMs: number }).atMs,
    toMs: index + 1 < history.length ? (history[index + 1] as { atMs: number }).atMs : Number.POSITIVE_INFINITY,
    status: lifecycle.statusAt(t),
    runningSince: lifecycle.runningSince(t),
    idle: Buffer.from(text),
    head: Buffer.from(`${head}${UPTIME_OPEN}`),
    tail: text.slice(at + RUNTIME_KEY.length + 'null'.length),
    loadFromMs: Number.NaN,
    loadToMs: Number.NaN,
  };
}
