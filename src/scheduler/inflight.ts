/**
 * Counts real I/O in flight (HTTP requests to RunPod or the simulator, SMTP sends). The virtual
 * scheduler may move time only when this is zero: otherwise a response on its way would arrive
 * "late" in virtual time.
 */
export class InflightCounter {
  private active = 0;
  private waiters: Array<() => void> = [];

  get count(): number {
    return this.active;
  }

  async track<T>(work: Promise<T>): Promise<T> {
    this.active++;
    try {
      return await work;
    } finally {
      this.active--;
      if (this.active === 0) for (const wake of this.waiters.splice(0)) wake();
    }
  }

  /** Resolves when nothing is in flight. */
  idle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
