/**
 * Wrong tokens typed into /login, counted per client address: after `limit` of them within
 * `windowMs` the form refuses that address until the oldest counted attempt leaves the window,
 * so a token cannot be guessed at network speed. Kept in memory (a restart forgets, which costs
 * a guesser a restart per `limit` tries) and bounded: addresses whose attempts all left the
 * window are dropped.
 */
export interface LoginAttempts {
  /** When this address may try again, or undefined when it may try now. */
  blockedUntil(address: string, now: number): number | undefined;
  failed(address: string, now: number): void;
}

export function loginAttempts(limit = 10, windowMs = 15 * 60_000): LoginAttempts {
  const failures = new Map<string, number[]>();
  const recent = (address: string, now: number): number[] => {
    const kept = (failures.get(address) ?? []).filter((at) => at > now - windowMs);
    if (kept.length === 0) failures.delete(address);
    else failures.set(address, kept);
    return kept;
  };
  return {
    blockedUntil(address, now) {
      const kept = recent(address, now);
      return kept.length >= limit ? (kept[kept.length - limit] as number) + windowMs : undefined;
    },
    failed(address, now) {
      failures.set(address, [...recent(address, now), now].slice(-limit));
      if (failures.size > 10_000) for (const key of [...failures.keys()]) recent(key, now);
    },
  };
}
