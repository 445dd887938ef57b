import { setMaxListeners } from 'node:events';

/**
 * Runs requests side by side (the API client bounds the concurrency) and fails as soon as one
 * fails, aborting the others, which would only spend rate-limit budget on answers nobody stores.
 * Resolves with the results in the shape of the tasks (an array or a tuple).
 */
export async function fetchAll<T extends readonly unknown[]>(
  signal: AbortSignal,
  tasks: { readonly [K in keyof T]: (signal: AbortSignal) => Promise<T[K]> },
): Promise<T> {
  signal.throwIfAborted();
  const siblings = new AbortController();
  // Every task listens on it (retry sleeps, sockets) and it dies with this call: no leak to warn about.
  setMaxListeners(0, siblings.signal);
  // Removed when done: a run calls this many times with the same signal, and listeners would pile up.
  const forward = () => siblings.abort(signal.reason);
  signal.addEventListener('abort', forward, { once: true });
  try {
    return (await Promise.all(tasks.map((task) => task(siblings.signal)))) as unknown as T;
  } catch (error) {
    siblings.abort(error);
    throw error;
  } finally {
    signal.removeEventListener('abort', forward);
  }
}
