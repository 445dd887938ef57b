import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { defaultConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { openDatabase } from '../../src/db/open.js';
import { checkLink, loadLinkSecret, signLink } from '../../src/links/index.js';

const START = Date.parse('2026-11-02T00:00:00Z');
let dir: string;
let path: string;
const clock = new VirtualClock(START);

function config(linkSecret?: string): Config {
  const base = defaultConfig([{ name: 'sim', apiKey: 'sim-key' }]);
  return { ...base, http: { ...base.http, ...(linkSecret === undefined ? {} : { linkSecret }) } };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-links-'));
  path = join(dir, 'podwarden.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const claims = {
  action: 'keep-running' as const,
  account: 'sim',
  subject: 'nb',
  until: START + 7_200_000,
  durationMs: 7_200_000,
  label: '2 h',
  recipient: 'ana@example.com',
  expiresAt: START + 86_400_000,
  nonce: 'n1',
  timeZone: 'UTC',
  episode: null,
};
const target = { action: 'keep-running', account: 'sim', subject: 'nb' } as const;

describe('the link secret', () => {
  it('is generated once, kept in the database, and the same after it is opened again', async () => {
    const first = openDatabase(path);
    const generated = await loadLinkSecret(first, config(), clock);
    expect(generated.length).toBe(32);
    expect((await loadLinkSecret(first, config(), clock)).equals(generated)).toBe(true);
    const token = signLink(generated, claims);
    first.close();

    const reopened = openDatabase(path);
    try {
      const again = await loadLinkSecret(reopened, config(), clock);
      expect(again.equals(generated)).toBe(true);
      // Not a signature problem: the link passes that check and is refused only because the Pod is unknown here.
      expect(await checkLink(reopened, again, token, target, START)).toEqual({
        ok: false,
        refusal: { reason: 'gone', detail: 'Pod nb no longer exists' },
      });
    } finally {
      reopened.close();
    }
  });

  it('comes from the configuration when given there, over a stored one; links of the other are forged', async () => {
    const database = openDatabase(path);
    try {
      const stored = await loadLinkSecret(database, config(), clock);
      const configured = await loadLinkSecret(database, config('configured-secret-0001'), clock);
      expect(configured.toString('utf8')).toBe('configured-secret-0001');
      expect(await checkLink(database, configured, signLink(stored, claims), target, START)).toEqual({
        ok: false,
        refusal: { reason: 'forged' },
      });
      // A fresh database with a configured secret stores none: the configuration stays the one source.
      const fresh = openDatabase(join(dir, 'other.db'));
      try {
        await loadLinkSecret(fresh, config('configured-secret-0001'), clock);
        const generated = await loadLinkSecret(fresh, config(), clock);
        expect(generated.equals(stored)).toBe(false);
      } finally {
        fresh.close();
      }
    } finally {
      database.close();
    }
  });
});
