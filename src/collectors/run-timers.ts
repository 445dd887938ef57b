import { performance } from 'node:perf_hooks';

/**
 * Collector runs' real-time deadlines (the open row after a second, the timeout after ten
 * minutes) on one shared timer, and their shutdown on one listener per shutdown signal. A replay
 * makes ~190 runs a virtual hour, each ending within milliseconds: a timer and an abort listener
 * of its own per run, armed and then cleared, cost more than the rest of its bookkeeping.
 */

interface Deadline {
  at: number;
  fire(): void;
}

const pending = new Set<Deadline>();
let timer: NodeJS.Timeout | undefined;
/** When the shared timer fires; +Infinity when it is not armed. */
let armedAt = Number.POSITIVE_INFINITY;

/**
 * Calls `fire` after `afterMs` of real time unless cancelled first. Like an unref'd setTimeout:
 * a deadline never keeps the process alive.
 */
export function deadline(afterMs: number, fire: () => void): { cancel(): void } {
  const entry: Deadline = { at: performance.now() + afterMs, fire };
  pending.add(entry);
  if (entry.at < armedAt) arm(entry.at);
  return { cancel: () => void pending.delete(entry) };
}

function arm(at: number): void {
  if (timer !== undefined) clearTimeout(timer);
  armedAt = at;
  timer = setTimeout(onTimer, Math.max(0, at - performance.now()));
  timer.unref();
}

function onTimer(): void {
  timer = undefined;
  armedAt = Number.POSITIVE_INFINITY;
  const now = performance.now();
  const due: Deadline[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const entry of pending) {
    if (entry.at <= now) due.push(entry);
    else if (entry.at < next) next = entry.at;
  }
  for (const entry of due) pending.delete(entry);
  if (next !== Number.POSITIVE_INFINITY) arm(next);
  // After re-arming: a deadline that throws must not stop the others.
  for (const entry of due) {
    try {
      entry.fire();
    } catch (error) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

/** The runs' controllers following each shutdown signal, in the order they started. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * Aborts `controller` with `parent`'s reason when `parent` aborts, until the returned function is
 * called: what `parent.addEventListener('abort', …)` and its removal do, with one listener per
 * parent however many runs follow it.
 */
export function follow(parent: AbortSignal, controller: AbortController): () => void {
  let runs = followers.get(parent);
  if (runs === undefined) {
    const following = new Set<AbortController>();
    runs = following;
    followers.set(parent, following);
    parent.addEventListener(
      'abort',
      () => {
        for (const run of [...following]) run.abort(parent.reason);
        following.clear();
      },
      { once: true },
    );
  }
  const set = runs;
  set.add(controller);
  return () => void set.delete(controller);
}
