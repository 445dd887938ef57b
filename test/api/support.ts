import { Writable } from 'node:stream';
import { type ApiClient, createApiClient } from '../../src/api/client.js';
import type { ApiClientOptions, RequestEvent } from '../../src/api/http.js';
import { VirtualClock } from '../../src/clock.js';
import { createLogger } from '../../src/log.js';

/** 2026-06-01T12:00:00Z, on a whole second so HTTP-dates (second precision) line up. */
export const START = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A VirtualClock that remembers every sleep, so waits are observed instead of slept. */
export class RecordingClock extends VirtualClock {
  readonly sleeps: number[] = [];
  private sleepWaiters: Array<() => void> = [];

  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    const promise = super.sleep(ms, signal);
    const waiters = this.sleepWaiters;
    this.sleepWaiters = [];
    for (const wake of waiters) wake();
    return promise;
  }

  /** Resolves the next time someone sleeps. */
  nextSleep(): Promise<void> {
    return new Promise((resolve) => this.sleepWaiters.push(resolve));
  }
}

/**
 * Runs `work` to completion, moving virtual time to each sleeper's deadline as soon as one
 * sleeps (real I/O happens in between at real speed).
 */
export async function drive<T>(clock: RecordingClock, work: Promise<T>): Promise<T> {
  let settled = false;
  const done = work.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  while (!settled) {
    const next = clock.nextTimerAt();
    if (next !== undefined) {
      await clock.advanceTo(Math.max(next, clock.now()));
      continue;
    }
    await Promise.race([done, clock.nextSleep()]);
  }
  return work;
}

export interface CapturedLog {
  lines: string[];
  text(): string;
}

/** A real pino logger at debug level whose JSON lines land in memory. */
export function captureLogger(): { log: ReturnType<typeof createLogger>; captured: CapturedLog } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  const log = createLogger({ level: 'debug', pretty: false, destination });
  return { log, captured: { lines, text: () => lines.join('\n') } };
}

export interface TestClient extends ApiClient {
  clock: RecordingClock;
  events: RequestEvent[];
  captured: CapturedLog;
}

export function makeClient(
  baseUrl: string,
  overrides: Partial<Omit<ApiClientOptions, 'clock'>> & { clock?: RecordingClock } = {},
): TestClient {
  const clock = overrides.clock ?? new RecordingClock(START);
  const events: RequestEvent[] = [];
  const { log, captured } = captureLogger();
  const client = createApiClient({
    restBaseUrl: `${baseUrl}/v2`,
    graphqlBaseUrl: `${baseUrl}/graphql`,
    apiKey: 'rpa_test_key_0000',
    graphqlAuth: 'header',
    clock,
    log,
    timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
    retries: { max: 3, baseDelayMs: 1_000, maxDelayMs: 30_000 },
    concurrency: 2,
    random: () => 1,
    onRequest: (event) => events.push(event),
    ...overrides,
  });
  return { ...client, clock, events, captured };
}

/** Resolves with the rejection of `promise`, failing if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
