import { type Clock, RealClock } from '../clock.js';

export interface ScaledClockOptions {
  /** The time this clock reads when it is created (epoch ms), e.g. a scenario's `start`. */
  startMs: number;
  /** How many milliseconds of this clock pass per millisecond of the base clock. */
  speed: number;
  /** The clock it runs on; real time unless a test supplies another. */
  base?: Clock;
}

/**
 * Scaled real time: starts at a chosen instant and runs `speed` times as fast as its base, so
 * `podwarden sim --speed 60` plays an hour of a scenario in a real minute.
 */
export class ScaledClock implements Clock {
  private readonly base: Clock;
  private readonly baseStartMs: number;

  constructor(private readonly options: ScaledClockOptions) {
    if (!Number.isFinite(options.speed) || options.speed <= 0) {
      throw new Error(`scaled clock: speed must be a positive number, got ${options.speed}`);
    }
    if (!Number.isFinite(options.startMs))
      throw new Error(`scaled clock: startMs must be a time, got ${options.startMs}`);
    this.base = options.base ?? new RealClock();
    this.baseStartMs = this.base.now();
  }

  now(): number {
    return Math.floor(this.options.startMs + (this.base.now() - this.baseStartMs) * this.options.speed);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return this.base.sleep(Math.max(0, ms) / this.options.speed, signal);
  }
}
