import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { savingsCard } from '../../src/web/savings-card.js';

/** The status page's Savings card against its golden file (`UPDATE_GOLDEN=1` rewrites it). */
const GOLDEN = join(resolve('test', 'golden', 'web'), 'savings-card.html');

describe("the status page's Savings card", () => {
  it('shows each account that stopped a Pod: saved so far, stops, and what the Pods still stopped save', () => {
    const html = String(
      savingsCard([
        { account: 'main', saved: 17.1004, stops: 2, stillStopped: 1, savingPerHrNow: 0.855 },
        { account: 'research', saved: 0.004, stops: 1, stillStopped: 0, savingPerHrNow: 0 },
      ]),
    );
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(GOLDEN)) writeFileSync(GOLDEN, html);
    expect(html).toBe(readFileSync(GOLDEN, 'utf8'));
  });

  it('is absent until a stop was sent, so the page of a dry run or fresh install is as it was', () => {
    expect(String(savingsCard([]))).toBe('');
  });
});
