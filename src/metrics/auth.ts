import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an Authorization header carries the expected bearer token. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content of the guess.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? '');
  const given = match?.[1] ?? '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token)) && match !== null;
}

/** The probes answer without the token: a load-balancer probe sends none, and they reveal nothing secret. */
export const OPEN_PROBES: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
