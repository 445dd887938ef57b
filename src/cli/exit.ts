/** Exit codes of every podwarden command. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Bad usage or configuration: the command exits 2 with this message. */
export class UsageError extends Error {
  readonly exitCode = EXIT_USAGE;
}

export function exitCodeOf(error: unknown): number {
  if (error && typeof error === 'object' && 'exitCode' in error && typeof error.exitCode === 'number') {
    return error.exitCode;
  }
  return EXIT_FAILURE;
}
