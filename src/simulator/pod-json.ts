import { type PodState, podRecord, utilizationAt } from './pod-view.js';
import type { Utilization } from './scenario.js';

/**
 * A Pod's record as JSON text, byte for byte `JSON.stringify(podRecord(pod, t))`, from parts kept
 * per Pod. A `large` account lists 2,000 Pods every virtual minute, and building each record as
 * an object and encoding the whole list again was the simulator's largest cost in a replayed
 * hour, although almost all of a record stays the same from one minute to the next: everything
 * but `runtime` changes only with the Pod's status or start (kept until those change), and
 * `runtime` is its uptime (a number) and the load the scenario's timeline holds at `t` (encoded
 * once per timeline entry). test/simulator/pod-json.test.ts holds it to JSON.stringify through
 * starts, stops, restarts, telemetry gaps and multi-GPU Pods.
 */

interface Parts {
  /** What the head and tail were made for: status, whether it runs, startedAt. */
  key: string;
  /** The record up to `runtime`'s value: `{"id":…,"globalNetworking":{…},"runtime":`. */
  head: string;
  /** The record after `runtime`'s value: `,"createdAt":…}`. */
  tail: string;
  /** The load the text below encodes, by identity (a timeline entry's value). */
  load?: Utilization;
  /** `"gpus":[…],"cpu":{…},"memory":{…},"ports":[…]}`: runtime's text after its uptime. */
  loadText?: string;
}

const kept = new WeakMap<PodState, Parts>();

const RUNTIME_KEY = ',"runtime":';

export function podRecordJson(pod: PodState, t: number): string {
  const { lifecycle } = pod;
  const status = lifecycle.statusAt(t);
  const runningSince = lifecycle.runningSince(t);
  const key = `${status}|${runningSince !== undefined}|${lifecycle.lastStartedAt(t)}`;
  let parts = kept.get(pod);
  if (parts === undefined || parts.key !== key) {
    parts = partsOf(pod, t, key);
    kept.set(pod, parts);
  }
  const load = runningSince === undefined ? null : utilizationAt(pod.spec, t);
  if (runningSince === undefined || load === null) return `${parts.head}null${parts.tail}`;
  if (parts.load !== load || parts.loadText === undefined) {
    // Encoded from the very record podRecord builds, so the text is JSON.stringify's own.
    const runtime = JSON.stringify(podRecord(pod, t).runtime);
    parts.loadText = runtime.slice(runtime.indexOf(',') + 1);
    parts.load = load;
  }
  return `${parts.head}{"uptime":${Math.floor((t - runningSince) / 1000)},${parts.loadText}${parts.tail}`;
}

/** Head and tail: the record encoded with runtime null, cut around runtime's value. */
function partsOf(pod: PodState, t: number, key: string): Parts {
  const text = JSON.stringify({ ...podRecord(pod, t), runtime: null });
  // Keys after runtime are createdAt, startedAt and the gpu, cpu and cluster objects: none holds
  // a `"runtime":` key, so the last one found is the record's own.
  const at = text.lastIndexOf(`${RUNTIME_KEY}null`);
  return {
    key,
    head: text.slice(0, at + RUNTIME_KEY.length),
    tail: text.slice(at + RUNTIME_KEY.length + 'null'.length),
  };
}
