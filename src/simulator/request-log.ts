/** One request as the simulator saw it; `status` is null when a `reset` fault dropped the connection. */
export interface RequestLogEntry {
  seq: number;
  method: string;
  path: string;
  /** The query string without its leading `?`, with any `api_key` value masked. */
  query: string;
  status: number | null;
  /** Virtual time at which the request arrived (epoch ms). */
  atMs: number;
  /** Real time the simulator spent on it, including injected latency. */
  durationMs: number;
  /** The injected fault, as `status:503`, `latency:3000`, `malformed` or `reset`, joined by `+`. */
  fault?: string;
}

export type RequestCounts = ReturnType<typeof emptyCounts>;

const DEFAULT_CAPACITY = 10_000;

/** What the simulator served, for tests and the replay report: the latest entries, counts of every request. */
export class RequestLog {
  private readonly capacity: number;
  /** A ring, written at `next`, holding `held` entries: a full log drops its oldest without moving the others. */
  private readonly ring: RequestLogEntry[] = [];
  private next = 0;
  private held = 0;
  private seq = 0;
  private readonly tally: RequestCounts = emptyCounts();

  constructor(capacity = DEFAULT_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`request log: capacity must be ≥ 1, got ${capacity}`);
    this.capacity = capacity;
  }

  record(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full: RequestLogEntry = { seq: ++this.seq, ...entry };
    this.ring[this.next] = full;
    this.next = (this.next + 1) % this.capacity;
    if (this.held < this.capacity) this.held++;
    this.count(full.status);
    return full;
  }

  /** Entries still held, oldest first; with `afterSeq`, only those logged after that one. */
  entries(afterSeq = 0): RequestLogEntry[] {
    // Until the ring is full the oldest entry is the first; after, the one `next` overwrites.
    const oldest = this.held < this.capacity ? 0 : this.next;
    const entries: RequestLogEntry[] = [];
    for (let index = 0; index < this.held; index++) {
      const entry = this.ring[(oldest + index) % this.capacity] as RequestLogEntry;
      if (entry.seq > afterSeq) entries.push(entry);
    }
    return entries;
  }

  /** The seq of the latest entry (0 when none), to read only what follows later. */
  lastSeq(): number {
    return this.seq;
  }

  counts(): RequestCounts {
    return { ...this.tally, byStatus: { ...this.tally.byStatus } };
  }

  private count(status: number | null): void {
    this.tally.total++;
    if (status === null) {
      this.tally.resets++;
      return;
    }
    const key = String(status);
    this.tally.byStatus[key] = (this.tally.byStatus[key] ?? 0) + 1;
    if (status === 429) this.tally.status429++;
    if (status >= 500) this.tally.status5xx++;
  }
}

function emptyCounts() {
  return { total: 0, byStatus: {} as Record<string, number>, status429: 0, status5xx: 0, resets: 0 };
}
