import { describe, expect, it } from 'vitest';
import { loginAttempts } from '../../src/web/login-attempts.js';

describe('loginAttempts: a bounded counter', () => {
  it('remembers at most maxClients addresses; a forgotten one gets one more guess, the overall budget still counts it', () => {
    const attempts = loginAttempts({ perClient: 3, overall: 5, windowMs: 60_000, maxClients: 2 });
    for (let client = 1; client <= 5; client++) attempts.failed(`203.0.113.${client}`, 1_000);
    expect(attempts.size()).toBe(2);
    expect(attempts.refusedUntil('203.0.113.5', 2_000)).toEqual({ until: 61_000, by: 'all' });
    expect(attempts.refusedUntil('203.0.113.1', 2_000)).toBeUndefined();
    attempts.failed('203.0.113.1', 2_000);
    expect(attempts.refusedUntil('203.0.113.1', 2_000)).toEqual({ until: 61_000, by: 'all' });
    expect(attempts.refusedUntil('203.0.113.1', 62_001)).toBeUndefined();
  });
});
