import { afterEach } from 'vitest';
import type { Collector, CollectResult } from '../../src/collectors/collector.js';
import { type Harness, startHarness } from '../helpers/harness.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** 2026-11-02T00:00:00Z: the start of small-team and of the scenarios built here. */
export const T0 = Date.UTC(2026, 10, 2);
export const START = '2026-11-02T00:00:00Z';
export const KEY = 'sim-key';

/** A harness per test, closed after it. */
export function useHarness(): (source: Parameters<typeof startHarness>[0]) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    for (const harness of open.splice(0)) await harness.close();
  });
  return async (source) => {
    const harness = await startHarness(source);
    open.push(harness);
    return harness;
  };
}

/**
 * Moves virtual time to `at` (ms since T0) and runs one collection, driving any backoff. The
 * outcome is settled before it reaches `drive`, whose own promise would otherwise reject with no
 * handler while it waits between turns of the event loop (an unhandled rejection in vitest).
 */
export async function pollAt(h: Harness, collector: Collector, at: number): Promise<CollectResult> {
  await h.clock.advanceTo(T0 + at);
  const outcome = await h.drive(
    collector.collect(h.context()).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    ),
  );
  if (!outcome.ok) throw outcome.error;
  return outcome.result;
}

/** A scenario with nothing in it but what `extra` adds. */
export function emptyScenario(extra: Record<string, unknown>): Record<string, unknown> {
  return { name: 'collector-test', start: START, apiKey: KEY, ...extra };
}
