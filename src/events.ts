import type { Logger } from './log.js';

/** The sending half of an event bus, so a part can emit a subset of the daemon's events. */
export interface EventSink<Events extends Record<string, unknown>> {
  emit<K extends keyof Events>(name: K, payload: Events[K]): void;
}

/** A listener may be async (a metrics refresh reads the store): the bus tracks what it returns. */
export type Listener<Payload> = (payload: Payload) => unknown;

/**
 * A typed event bus: what a listener throws is logged, never thrown into the loop. `emit` does not
 * wait for async listeners but tracks them, so `next` and `settled()` resolve once they settled.
 */
export class EventBus<Events extends Record<string, unknown>> implements EventSink<Events> {
  private listeners = new Map<keyof Events, Set<Listener<never>>>();
  private inflight = new Set<Promise<void>>();

  constructor(private readonly log?: Logger) {}

  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /**
   * Resolves with the next payload of `name` that satisfies `predicate`, after every listener of
   * that emit (sync or async) has settled.
   */
  next<K extends keyof Events>(name: K, predicate: (payload: Events[K]) => boolean = () => true): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(name, (payload) => {
        if (!predicate(payload)) return;
        off();
        // After this emit has called every listener, so their promises are in flight.
        queueMicrotask(() => void this.settled().then(() => resolve(payload)));
      });
    });
  }

  emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        const result = (listener as Listener<Events[K]>)(payload);
        if (result instanceof Promise) this.track(name, result as Promise<unknown>);
      } catch (error) {
        this.log?.error({ err: error, event: String(name) }, 'event listener failed');
      }
    }
  }

  /** Resolves when no listener promise is in flight, including those started meanwhile. */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  private track(name: keyof Events, result: Promise<unknown>): void {
    const tracked = result.then(
      () => undefined,
      (error: unknown) => this.log?.error({ err: error, event: String(name) }, 'event listener failed'),
    );
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
  }
}
