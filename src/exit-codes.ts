/** Exit codes of every podwarden command. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
/** Bad usage or configuration (a configuration error exits so too). */
export const EXIT_USAGE = 2;
