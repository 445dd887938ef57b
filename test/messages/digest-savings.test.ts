import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderDigest } from '../../src/messages/notices.js';
import { DIGEST } from './fixtures.js';

/**
 * The digest's running total from the savings ledger, against golden files (`UPDATE_GOLDEN=1`
 * rewrites them); without a ledger total the digest is the one test/messages/golden.test.ts reviews.
 */
const GOLDEN = resolve('test', 'golden', 'email');

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) writeFileSync(path, actual);
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

describe('the digest with the savings ledger', () => {
  it('says what the stops saved so far, and what the Pods still stopped save per hour', () => {
    const message = renderDigest({
      ...DIGEST,
      savedSoFar: { account: 'team', saved: 412.3456, stops: 9, stillStopped: 2, savingPerHrNow: 3.1 },
    });
    expect(message.text).toContain(
      'Since its first stop here, podwarden has saved $412.35 with 9 stops; 2 Pods are still stopped, saving $3.10/h.',
    );
    golden('digest-saved-so-far.txt', `Subject: ${message.subject}\n\n${message.text}`);
    golden('digest-saved-so-far.html', message.html);
  });

  it('adds nothing before a stop was sent', () => {
    expect(renderDigest({ ...DIGEST, savedSoFar: undefined })).toEqual(renderDigest(DIGEST));
  });
});
