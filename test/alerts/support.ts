import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNotifications } from '../../src/channels/evaluator.js';
import { VirtualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { outboxMessagesBetween } from '../../src/db/notifications.js';
import { type Database, openDatabase } from '../../src/db/open.js';
import { EventBus } from '../../src/events.js';
import { silentLogger } from '../../src/log.js';
import { BARE_COMMAND_LINE } from '../../src/messages/commands.js';
import type { Finding } from '../../src/rules/finding.js';
import type { Unjudged } from '../../src/rules/unjudged.js';
import type { EvaluationEvents } from '../../src/tick/context.js';

export const START = Date.UTC(2026, 10, 2, 0, 0, 0);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/**
 * The alerts evaluator on a real database and a virtual clock, fed findings as rules would feed
 * them, one tick at a time. `reopen()` closes the database and opens it again, as a restart does.
 */
export interface AlertBench {
  config: Config;
  clock: VirtualClock;
  db: Database;
  events: EventBus<EvaluationEvents>;
  sent: Array<EvaluationEvents['alert:sent']>;
  states: Array<EvaluationEvents['alert:state']>;
  /** One tick; `unjudged` is what the rules could not judge in it. */
  tick(findings: readonly Finding[], unjudged?: Unjudged[]): Promise<void>;
  /** Ticks every minute for `ms`, with the findings `at` gives for each tick's time. */
  run(ms: number, at: (now: number) => readonly Finding[]): Promise<void>;
  outbox(): ReturnType<typeof outboxMessagesBetween>;
  reopen(): void;
  close(): void;
}

/** `start` is the virtual clock's first instant (peers that keep real time want it near now). */
export function alertBench(tune: (config: Config) => void = () => {}, start = START): AlertBench {
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-alerts-'));
  const config = defaultConfig([{ name: 'sim', apiKey: 'sim-key-0001' }]);
  config.database.path = join(dir, 'podwarden.db');
  tune(config);
  const clock = new VirtualClock(start);
  const events = new EventBus<EvaluationEvents>();
  const sent: AlertBench['sent'] = [];
  const states: AlertBench['states'] = [];
  events.on('alert:sent', (event) => sent.push(event));
  events.on('alert:state', (event) => states.push(event));
  let db = openDatabase(config.database.path);
  const bench: AlertBench = {
    config,
    clock,
    get db() {
      return db;
    },
    events,
    sent,
    states,
    async tick(findings, unjudged) {
      await runNotifications({
        config,
        db,
        clock,
        now: clock.now(),
        log: silentLogger(),
        signal: new AbortController().signal,
        events,
        commandLine: BARE_COMMAND_LINE,
        findings: [...findings],
        unjudged: unjudged ?? [],
      });
    },
    async run(ms, at) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        await bench.tick(at(clock.now()));
        await clock.advanceBy(MINUTE);
      }
    },
    outbox: () => outboxMessagesBetween(db, 0, Number.MAX_SAFE_INTEGER),
    reopen() {
      db.close();
      db = openDatabase(config.database.path);
    },
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return bench;
}

/** A finding as a rule would make it. */
export function finding(key: string, overrides: Partial<Finding> = {}): Finding {
  const rule = overrides.rule ?? (key.split(':')[0] as Finding['rule']);
  return {
    rule,
    key,
    account: 'sim',
    severity: 'warning',
    summary: `${key} happened, $1.00`,
    labels: { rule, account: 'sim' },
    details: { cost: 1 },
    ...overrides,
  };
}

/** A budget finding for one figure and threshold, labelled as the budget rule labels them. */
export function budgetFinding(budget: string, figure: string, threshold: number): Finding {
  return finding(`budget:sim:${budget}:${figure}:${threshold}`, {
    rule: 'budget',
    severity: threshold >= 100 ? 'critical' : 'warning',
    summary: `Budget ${budget}: ${figure} crossed ${threshold}%`,
    labels: { rule: 'budget', account: 'sim', budget, figure, threshold: String(threshold) },
  });
}
