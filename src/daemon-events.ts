import type { RequestEvent } from './api/http.js';
import type { RunReport } from './collectors/run.js';
import type { RetentionResult } from './db/retention.js';
import type { Unjudged } from './rules/unjudged.js';
import type { EvaluationEvents } from './tick/context.js';

/**
 * Every event the daemon emits on its bus: metrics, the demo's console and tests listen to them.
 * It sits below metrics/ and web/, which the daemon starts.
 */
export interface DaemonEvents extends EvaluationEvents {
  'collector:finished': RunReport;
  'retention:finished': RetentionResult;
  'api:request': RequestEvent & { account: string };
  /**
   * Every evaluator of a tick has run (metrics take what the tick wrote from here), with what
   * the rules could not judge in it.
   */
  'evaluation:finished': { at: number; unjudged: readonly Unjudged[] };
}
