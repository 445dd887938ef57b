import type { Clock, VirtualClock } from '../clock.js';

/**
 * The simulators' views of a replay's clock, one per simulated world: injected latency moves the
 * clock forward at once (sleeping on a clock only the replay loop moves would never end). Within
 * one world latencies add up; across worlds they overlap: while no one else has moved the clock
 * since the last jump, it stands at the largest total any world has jumped, not at the sum.
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
