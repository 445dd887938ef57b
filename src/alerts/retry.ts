/**
 * The retry policy every durable outbox shares (email and Alertmanager): exponential backoff on
 * the daemon's clock, and a lease that keeps two runs from attempting the same row at once.
 */

/** The first retry comes after this; each later one doubles, up to RETRY_MAX_MS. */
export const RETRY_BASE_MS = 60_000;
export const RETRY_MAX_MS = 30 * 60_000;
/** How long one email attempt may hold its row; longer than nodemailer's timeouts added up. */
export const LEASE_MS = 10 * 60_000;

/** The wait before the next attempt, after `attempts` failed ones. */
export function retryDelay(attempts: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);
}
