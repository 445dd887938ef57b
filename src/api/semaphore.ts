/**
 * How soon a request gets a slot: `urgent` (the Pod poll, a stop, the re-read before it) before
 * `normal`, and `background` (billing, whose backfill can fill every slot for minutes) last.
 */
export type RequestPriority = 'urgent' | 'normal' | 'background';

const ORDER: readonly RequestPriority[] = ['urgent', 'normal', 'background'];

/** The slots background requests may hold at once: all but one, so an urgent request never waits for them. */
export function backgroundSlots(limit: number): number {
  return limit > 1 ? limit - 1 : 1;
}

/**
 * At most `limit` holders at once; the rest queue by priority, then in arrival order. With more
 * than one slot, background holders never take the last one, so an urgent request finds a free
 * slot at once even while a slow backfill runs.
 */
export class Semaphore {
  private active = 0;
  private backgroundActive = 0;
  private readonly backgroundLimit: number;
  private readonly waiting: Record<RequestPriority, Array<() => void>> = { urgent: [], normal: [], background: [] };

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
    this.backgroundLimit = backgroundSlots(limit);
  }

  async acquire(priority: RequestPriority = 'normal'): Promise<() => void> {
    if (this.admits(priority) && !this.queuedAtOrAbove(priority)) this.take(priority);
    // The slot is taken for the waiter by `grant`, before it runs.
    else await new Promise<void>((resolve) => this.waiting[priority].push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      if (priority === 'background') this.backgroundActive--;
      this.grant();
    };
  }

  private admits(priority: RequestPriority): boolean {
    return this.active < this.limit && (priority !== 'background' || this.backgroundActive < this.backgroundLimit);
  }

  private queuedAtOrAbove(priority: RequestPriority): boolean {
    return ORDER.slice(0, ORDER.indexOf(priority) + 1).some((level) => this.waiting[level].length > 0);
  }

  private take(priority: RequestPriority): void {
    this.active++;
    if (priority === 'background') this.backgroundActive++;
  }

  /** Hands free slots to the waiters, highest priority first. */
  private grant(): void {
    for (const priority of ORDER) {
      const queue = this.waiting[priority];
      while (queue.length > 0 && this.admits(priority)) {
        this.take(priority);
        (queue.shift() as () => void)();
      }
    }
  }
}
