import type { Database } from '../db/open.js';
import { type AccountSnapshot, readAccountSnapshot } from '../db/snapshot.js';
import type { Logger } from '../log.js';
import type { BudgetInputs } from '../rules/budget.js';
import type { Finding, RuleName } from '../rules/finding.js';
import { snapshotWindow } from '../rules/snapshot-window.js';
import { RULE_NAMES, type Unjudged } from '../rules/unjudged.js';
import { readBudgetInputs } from './budget-status.js';
import type { EvaluationContext, Evaluator } from './context.js';
import { evaluators } from './evaluators.js';

/** What a tick is given; `now`, the snapshots, findings and unjudged scopes it makes itself. */
export type TickInputs = Omit<EvaluationContext, 'now' | 'log' | 'snapshots' | 'budgets' | 'findings' | 'unjudged'>;

/** What a failed step leaves unjudged: every alert of the rules it judges. */
export function unjudgedByFailure(evaluator: Evaluator): Unjudged[] {
  const rules =
    evaluator.judges ?? (RULE_NAMES.includes(evaluator.name as RuleName) ? [evaluator.name as RuleName] : []);
  return rules.map((rule) => ({ labels: { rule }, reason: `evaluator ${evaluator.name} failed` }));
}

/** Each configured account's snapshot at `ctx.now`, read before any step runs. */
export async function readSnapshots(
  db: Database,
  inputs: Pick<TickInputs, 'config'>,
  now: number,
): Promise<Map<string, AccountSnapshot>> {
  const window = snapshotWindow(inputs.config, now);
  const snapshots = new Map<string, AccountSnapshot>();
  for (const { name } of inputs.config.accounts) snapshots.set(name, await readAccountSnapshot(db, name, window));
  return snapshots;
}

/**
 * The evaluation tick: read one snapshot per account, then every step in registry order on one
 * `now`; a failing step does not stop the rest. Loggers are made once, not per tick: a child
 * logger serialises its bindings when it is made.
 */
export class TickRunner {
  private readonly log: Logger;
  private readonly stepLogs: ReadonlyMap<string, Logger>;

  constructor(log: Logger) {
    this.log = log.child({ tick: 'evaluate' });
    this.stepLogs = new Map(evaluators.map((e) => [e.name, this.log.child({ evaluator: e.name })]));
  }

  get hasSteps(): boolean {
    return evaluators.length > 0;
  }

  /**
   * One tick at `now`. `onFailure` hears of every failed read or step (the daemon's write
   * problem); returns what the rules could not judge, or undefined when shut down mid-tick.
   */
  async run(
    inputs: TickInputs,
    now: number,
    onFailure: (op: string, error: unknown) => void,
  ): Promise<readonly Unjudged[] | undefined> {
    const findings: Finding[] = [];
    const unjudged: Unjudged[] = [];
    let snapshots: ReadonlyMap<string, AccountSnapshot>;
    let budgets: BudgetInputs;
    try {
      snapshots = await readSnapshots(inputs.db, inputs, now);
      budgets = await readBudgetInputs(inputs.db, inputs.config, now, (account) => snapshots.get(account)?.pods);
    } catch (error) {
      // Nothing read, nothing judged: every rule's alerts keep their state; the outbox still runs.
      onFailure('read the tick snapshot', error);
      this.log.error({ err: error }, 'tick snapshot not read');
      snapshots = new Map();
      budgets = { billedSince: new Map(), spend: new Map(), resources: new Map() };
      unjudged.push(...RULE_NAMES.map((rule) => ({ labels: { rule }, reason: 'tick snapshot not read' })));
    }
    for (const evaluator of evaluators) {
      try {
        await evaluator.evaluate({
          ...inputs,
          now,
          log: this.stepLogs.get(evaluator.name) ?? this.log,
          snapshots,
          budgets,
          findings,
          unjudged,
        });
      } catch (error) {
        if (inputs.signal.aborted) return undefined;
        onFailure(`evaluator ${evaluator.name}`, error);
        unjudged.push(...unjudgedByFailure(evaluator));
        this.log.error({ evaluator: evaluator.name, err: error }, 'evaluator failed');
      }
    }
    return unjudged;
  }
}
