import type { Clock } from '../clock.js';
import {
  claimRow,
  dueRows,
  type OutboxRow,
  type RowOutcome,
  recordOutcomes,
  targetBackingOff,
} from '../db/channel-outbox.js';
import type { Database } from '../db/open.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import { retryDelay } from './retry.js';

/**
 * The delivery stage every channel shares: targets side by side, due rows oldest first, each
 * leased before its attempt; a failed attempt is retried with backoff, a row past the give-up is
 * abandoned, never sent late. An attempt in doubt (a crash before its record) is made again when
 * its lease runs out: channels make that harmless (the same Message-ID, the same labels).
 */

/** What a channel answers for one delivery. */
export type Outcome =
  /** Taken. `againAt`: an episode still firing is delivered again then (Alertmanager's resend). */
  | { kind: 'delivered'; response?: string; againAt?: number }
  /**
   * Not taken, try later: after the backoff, or at `at`. `unreachable`: the target's other rows
   * would only wait for the same timeout, so they wait for the next pass.
   */
  | { kind: 'retry'; error: string; unreachable?: boolean; at?: number }
  /** Failed for good: never attempted again. */
  | { kind: 'failed'; error: string };

/** A row's outcome as recorded, for the channel's logs and events. */
export type Recorded = Outcome | { kind: 'abandoned'; error: string };

/** One channel as the delivery stage drives it (src/channels build it from their config). */
export interface Deliverer {
  channel: string;
  /** Where it delivers (the URLs of an Alertmanager HA set); [''] for a single destination. */
  targets: readonly string[];
  /** Rows per attempt (Alertmanager takes many alerts in one POST; an email is one message). */
  batchSize: number;
  /** How long an attempt may hold its rows. */
  leaseMs: number;
  /** A target that failed holds back its other rows until its backoff ends (delivery in order). */
  inOrder: boolean;
  /** A row not delivered within this of being written is abandoned. */
  giveUpAfterMs?: number;
  /** Why a row cannot be delivered at all (no recipients), checked before any attempt. */
  undeliverable?(row: OutboxRow): string | undefined;
  deliver(rows: readonly OutboxRow[], target: string, now: number): Promise<Outcome>;
  /** Called once the outcome of `rows` is recorded: the channel's logs and events. */
  recorded?(rows: readonly OutboxRow[], outcome: Recorded, at: number, target: string): void;
}

export interface DeliveryContext {
  db: Database;
  clock: Clock;
  inflight?: InflightCounter;
  signal?: AbortSignal;
}

/** One pass of one channel over its due rows. */
export async function deliverDue(ctx: DeliveryContext, deliverer: Deliverer): Promise<void> {
  await Promise.all(deliverer.targets.map((target) => serveTarget(ctx, deliverer, target)));
}

async function serveTarget(ctx: DeliveryContext, d: Deliverer, target: string) {
  while (!ctx.signal?.aborted) {
    const now = ctx.clock.now();
    if (d.inOrder && (await targetBackingOff(ctx.db, d.channel, target, now))) return;
    const due = await dueRows(ctx.db, d.channel, now, { target, limit: d.batchSize });
    if (due.length === 0) return;
    const rows: OutboxRow[] = [];
    for (const row of due) {
      const why = whyAbandon(d, row, now);
      if (why !== undefined) {
        await recordOutcomes(ctx.db, [{ kind: 'failed', id: row.id, error: why }], now);
        d.recorded?.([row], { kind: 'abandoned', error: why }, now, target);
      } else if (await claimRow(ctx.db, row.id, now, now + d.leaseMs)) rows.push(row);
    }
    if (rows.length === 0) continue;
    const attempt = d.deliver(rows, target, now);
    const outcome = await (ctx.inflight ? ctx.inflight.track(attempt) : attempt);
    const at = ctx.clock.now();
    await recordOutcomes(
      ctx.db,
      rows.map((row) => rowOutcome(row, outcome, at)),
      at,
    );
    d.recorded?.(rows, outcome, at, target);
    if (outcome.kind === 'retry' && (d.inOrder || outcome.unreachable)) return;
    if (d.inOrder && rows.length < d.batchSize) return;
  }
}

function whyAbandon(d: Deliverer, row: OutboxRow, now: number): string | undefined {
  if (d.giveUpAfterMs !== undefined && now - row.createdAt > d.giveUpAfterMs) {
    return `not sent within ${Math.round(d.giveUpAfterMs / 60_000)}m: ${row.lastError ?? 'no attempt'}`;
  }
  return d.undeliverable?.(row);
}

function rowOutcome(row: OutboxRow, outcome: Outcome, at: number): RowOutcome {
  switch (outcome.kind) {
    case 'delivered':
      return { kind: 'delivered', row, response: outcome.response ?? null, againAt: outcome.againAt };
    case 'retry':
      return {
        kind: 'retry',
        id: row.id,
        nextAttemptAt: outcome.at ?? at + retryDelay(row.attempts + 1),
        error: outcome.error,
      };
    case 'failed':
      return { kind: 'failed', id: row.id, error: outcome.error };
  }
}
