import type { Evaluator } from './evaluator.js';

/**
 * The evaluation tick, in order: rules that produce findings first, then what acts on them.
 * Each entry is one file; add new ones where their inputs are ready.
 */
export const evaluators: readonly Evaluator[] = [];
