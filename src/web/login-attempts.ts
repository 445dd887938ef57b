/**
 * Wrong tokens typed into /login, counted per client address (src/web/client-address.ts) and
 * across all addresses together. Past `perClient` wrong tokens from one address, or `overall`
 * from all of them, within `windowMs`, a wrong token is answered "too many" until the oldest
 * counted one leaves the window. The right token is checked first and never refused, so a
 * guesser cannot lock anyone out; what keeps the token from being guessed is its length, and
 * these counts are what show that someone is trying.
 *
 * A short-lived security counter, not a record: it lives in memory (a restart forgets it) and
 * is bounded: at most `maxClients` addresses of at most `perClient` times each, the addresses
 * that failed least recently dropped first, and `overall` times for all of them; a guesser who
 * cycles through addresses to be forgotten still fills the overall budget.
 */
export interface LoginAttempts {
  /** Until when wrong tokens from this client are refused, and whether by its own count or by all. */
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
