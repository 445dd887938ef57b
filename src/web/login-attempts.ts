/**
 * Wrong tokens typed into /login, counted per client address (src/web/client-address.ts) and
 * across all addresses together, within `windowMs`. A refused client gets no token checked at
 * all, the right one included: otherwise the answer to a refused guess would still tell right
 * from wrong, and nothing would be limited. Who is refused:
 * - a client with `perClient` wrong tokens of its own in the window;
 * - while all clients together have `overall` wrong tokens in the window, every client with a
 *   wrong token of its own in it. A client without one is always heard, so the person who types
 *   the token right is never locked out by others' guessing, and a guesser with many addresses
 *   gets one guess per address while the budget is spent.
 * Only the guessing client is ever refused; behind a reverse proxy that means configuring
 * `http.trustedProxies`, else every client is the proxy.
 *
 * A short-lived security counter, not a record: it lives in memory (a restart forgets it) and
 * is bounded: at most `maxClients` addresses of at most `perClient` times each, the addresses
 * that failed least recently dropped first, and `overall` times for all of them; a guesser who
 * cycles through addresses to be forgotten still fills the overall budget.
 */
export interface LoginAttempts {
  /** Until when this client's tokens are refused unchecked, and whether by its own count or by all. */
  refusedUntil(client: string, now: number): { until: number; by: 'client' | 'all' } | undefined;
  failed(client: string, now: number): void;
  /** How many clients are remembered (for the bound's test). */
  size(): number;
}

export interface LoginLimits {
  perClient: number;
  overall: number;
  windowMs: number;
  maxClients: number;
}

export const LOGIN_LIMITS: LoginLimits = { perClient: 10, overall: 50, windowMs: 15 * 60_000, maxClients: 10_000 };

export function loginAttempts(limits: LoginLimits = LOGIN_LIMITS): LoginAttempts {
  const { perClient, overall, windowMs, maxClients } = limits;
  // Each list holds the times of the most recent wrong tokens, oldest first, at most its limit.
  const byClient = new Map<string, number[]>();
  let all: number[] = [];
  const within = (times: readonly number[], now: number) => times.filter((at) => at > now - windowMs);
  const fullUntil = (times: readonly number[], limit: number) =>
    times.length >= limit ? (times[times.length - limit] as number) + windowMs : undefined;
  return {
    refusedUntil(client, now) {
      all = within(all, now);
      const mine = within(byClient.get(client) ?? [], now);
      if (mine.length === 0) byClient.delete(client);
      const clientUntil = fullUntil(mine, perClient);
      if (clientUntil !== undefined) return { until: clientUntil, by: 'client' };
      if (mine.length === 0) return undefined;
      const allUntil = fullUntil(all, overall);
      return allUntil === undefined ? undefined : { until: allUntil, by: 'all' };
    },
    failed(client, now) {
      const mine = [...within(byClient.get(client) ?? [], now), now].slice(-perClient);
      // Deleted and set again, so the Map's order is least recently failed first.
      byClient.delete(client);
      byClient.set(client, mine);
      while (byClient.size > maxClients) byClient.delete(byClient.keys().next().value as string);
      all = [...within(all, now), now].slice(-overall);
    },
    size: () => byClient.size,
  };
}
