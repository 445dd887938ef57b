import type { Clock, VirtualClock } from '../clock.js';

/**
 * The simulator's view of a replay's clock: injected latency "takes" virtual time by moving the
 * clock forward at once, instead of sleeping on a clock that only the replay loop can move
 * (which would wait for a response the loop is itself waiting for).
 */
export function latencyJumpsClock(clock: VirtualClock): Clock {
  return {
    now: () => clock.now(),
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      clock.jump(ms);
      return Promise.resolve();
    },
  };
}
