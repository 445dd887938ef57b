import type { ApiClient } from '../api/index.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { EventSink } from '../events.js';
import type { Logger } from '../log.js';
import type { Finding } from '../rules/finding.js';
import type { Unjudged } from '../rules/unjudged.js';

/** What the actions emit, for tests (`await events.next('action:decided')`) and metrics. */
export interface ActionEvents extends Record<string, unknown> {
  /**
   * `held`: the guards that failed, with their reasons (a blocked stop's; empty otherwise);
   * `reason`: the receipt's own (why a planned stop was cancelled, for one), or null.
   */
  'action:decided': {
    at: number;
    podId: string;
    account: string;
    decision: string;
    dryRun: boolean;
    held: ReadonlyArray<{ guard: string; detail: string }>;
    reason: string | null;
  };
}

/**
 * What the idle ladder gets from the tick: the tick's `now` and snapshot of each account, the
 * findings and unjudged scopes so far (it appends its own), and the store it writes its
 * episodes and receipts to. Only actions change cloud state, through `apis`.
 */
export interface ActionContext {
  config: Config;
  db: Database;
  now: number;
  log: Logger;
  signal: AbortSignal;
  apis: ReadonlyMap<string, ApiClient>;
  events: EventSink<ActionEvents>;
  /** The tick's snapshot of each configured account, read at its start. */
  snapshots: ReadonlyMap<string, AccountSnapshot>;
  findings: Finding[];
  unjudged: Unjudged[];
}
