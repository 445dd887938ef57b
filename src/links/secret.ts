import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { keepLinkSecret, storedLinkSecret } from '../db/links.js';
import type { Database } from '../db/open.js';

/**
 * The link secret: `http.linkSecret` / `linkSecretFile` when configured (it wins over a stored
 * one), else the one generated on first start and kept in the database, so links mailed before a
 * restart still work.
 */
export async function loadLinkSecret(
  database: Database,
  config: Pick<Config, 'http'>,
  clock: Pick<Clock, 'now'>,
): Promise<Buffer> {
  const configured = config.http.linkSecret;
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  const stored = await storedLinkSecret(database);
  if (stored !== undefined) return Buffer.from(stored, 'base64url');
  return Buffer.from(await keepLinkSecret(database, randomBytes(32).toString('base64url'), clock.now()), 'base64url');
}
