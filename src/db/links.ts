import { eq, lt } from 'drizzle-orm';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { linkSecret, usedLinks } from './schema.js';

export type UsedLinkRecord = typeof usedLinks.$inferSelect;

/** The stored link secret (base64url), if one was made. */
export const storedLinkSecret = outsideTransaction(storedLinkSecretSync);

function storedLinkSecretSync(database: Database): string | undefined {
  return database.db.select({ secret: linkSecret.secret }).from(linkSecret).where(eq(linkSecret.id, 1)).get()?.secret;
}

/**
 * Stores `secret` unless one is stored already, and returns the one that is: two processes
 * starting at once on the same database agree on the first one written.
 */
export async function keepLinkSecret(database: Database, secret: string, createdAt: number): Promise<string> {
  return database.transaction(() => {
    database.db.insert(linkSecret).values({ id: 1, secret, createdAt }).onConflictDoNothing().run();
    return storedLinkSecretSync(database) as string;
  });
}

export const usedLink = outsideTransaction(usedLinkSync);

/** usedLink, for a store function reading it inside its own transaction. */
export function usedLinkSync(database: Database, nonce: string): UsedLinkRecord | undefined {
  return database.db.select().from(usedLinks).where(eq(usedLinks.nonce, nonce)).get();
}

/** Records a link as used; false when its nonce was used already (nothing written then). */
export const recordUsedLink = outsideTransaction(recordUsedLinkSync);

/** recordUsedLink, for a store function writing it inside its own transaction. */
export function recordUsedLinkSync(database: Database, link: UsedLinkRecord): boolean {
  return database.db.insert(usedLinks).values(link).onConflictDoNothing().run().changes === 1;
}

/** Deletes the nonces used before `before`; the caller picks a time past which no link can still be valid. */
export async function pruneUsedLinks(database: Database, before: number): Promise<number> {
  return database.db.delete(usedLinks).where(lt(usedLinks.usedAt, before)).run().changes;
}
