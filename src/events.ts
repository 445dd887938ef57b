import type { Logger } from './log.js';

/** The sending half of an event bus, so a part can emit a subset of the daemon's events. */
export interface EventSink<Events extends Record<string, unknown>> {
  emit<K extends keyof Events>(name: K, payload: Events[K]): void;
}

/**
 * A typed event bus for the daemon. What a listener throws is logged by `emit`, never thrown
 * into the loop, and tests `await events.next('collector:finished')` instead of sleeping.
 */
export class EventBus<Events extends Record<string, unknown>> implements EventSink<Events> {
  private listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  constructor(private readonly log?: Logger) {}

  on<K extends keyof Events>(name: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  /** Resolves with the next payload of `name` that satisfies `predicate`. */
  next<K extends keyof Events>(name: K, predicate: (payload: Events[K]) => boolean = () => true): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(name, (payload) => {
        if (!predicate(payload)) return;
        off();
        resolve(payload);
      });
    });
  }

  emit<K extends keyof Events>(name: K, payload: Events[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as (payload: Events[K]) => void)(payload);
      } catch (error) {
        this.log?.error({ err: error, event: String(name) }, 'event listener failed');
      }
    }
  }
}
