import type { Clock, VirtualClock } from '../clock.js';

/**
 * The simulators' views of a replay's clock, one per simulated world: injected latency "takes"
 * virtual time by moving the clock forward at once, instead of sleeping on a clock that only the
 * replay loop can move (which would wait for a response the loop is itself waiting for).
 *
 * Within one world, latencies add up (as they did with a single world). Across worlds they
 * overlap, as requests to several accounts do in real time: while no one else has moved the
 * clock since the last jump, the clock stands at the largest total any world has jumped, not at
 * the sum, so a replay of two accounts does not live through a latency fault twice as long.
 */
export function latencyJumpsClocks(clock: VirtualClock, worlds: number): Clock[] {
  let base = clock.now();
  let end = base;
  const spent = new Array<number>(worlds).fill(0);
  return spent.map((_, world) => ({
    now: () => clock.now(),
    sleep: (ms, signal) => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (clock.now() !== end) {
        base = clock.now();
        spent.fill(0);
      }
      spent[world] = (spent[world] ?? 0) + Math.max(0, ms);
      clock.jump(base + Math.max(...spent) - clock.now());
      end = clock.now();
      return Promise.resolve();
    },
  }));
}
