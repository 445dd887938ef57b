import { EXIT_USAGE } from '../exit-codes.js';
import { formatPath as formatFieldPath } from '../format.js';

/** One thing wrong with a configuration: where (`accounts[0].apiKey`) and what (`required`). */
export interface Problem {
  path: string;
  message: string;
}

/**
 * Every problem found in a configuration, not just the first, so one edit fixes them all.
 * The message is the problems one per line (`path: message`); the command exits 2.
 */
export class ConfigError extends Error {
  readonly exitCode = EXIT_USAGE;

  constructor(
    readonly problems: Problem[],
    /** The file the configuration came from, when there was one. */
    readonly source?: string,
  ) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
  }
}

/** `path: message`, or the bare message for problems with the file as a whole. */
export function formatProblem(problem: Problem): string {
  return problem.path ? `${problem.path}: ${problem.message}` : problem.message;
}

/** `['accounts', 0, 'apiKey']` → `accounts[0].apiKey`; the root is `(root)`. */
export function formatPath(segments: ReadonlyArray<PropertyKey>): string {
  return formatFieldPath(segments) || '(root)';
}
