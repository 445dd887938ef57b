import { idleEvaluator } from '../actions/idle-evaluator.js';
import { alertsEvaluator } from '../channels/evaluator.js';
import { budgetEvaluator } from './budget.js';
import { capacityEvaluator } from './capacity.js';
import type { Evaluator } from './evaluator.js';
import { wasteEvaluator } from './waste.js';

/**
 * The evaluation tick, in order: rules that produce findings first, then what acts on them.
 * Each entry is one file; add new ones where their inputs are ready.
 */
export const evaluators: readonly Evaluator[] = [
  budgetEvaluator,
  capacityEvaluator,
  wasteEvaluator,
  idleEvaluator,
  // Last: turns every finding of the tick into alert state and email.
  alertsEvaluator,
];
