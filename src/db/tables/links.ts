import { sql } from 'drizzle-orm';
import { check, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { accountColumn } from './columns.js';

/**
 * A single row: the secret that signs the action links of emails when the configuration gives
 * none. Generated on first start and kept here, so links mailed before a restart still work.
 */
export const linkSecret = sqliteTable(
  'link_secret',
  {
    id: integer('id').primaryKey(),
    /** 32 random bytes, base64url. */
    secret: text('secret').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  () => [check('link_secret_single_row', sql`"id" = 1`)],
);

/**
 * Every action link that was used, by its nonce: a link acts once. Written in the transaction
 * that makes the snooze or silence, so a link is never marked used without its effect, nor the
 * reverse.
 */
export const usedLinks = sqliteTable('used_links', {
  nonce: text('nonce').primaryKey(),
  action: text('action').notNull(),
  account: accountColumn(),
  /** The Pod id, or the alert's key. */
  subject: text('subject').notNull(),
  /** Who the link was mailed to (every recipient of the message, comma-separated). */
  recipient: text('recipient').notNull(),
  usedAt: integer('used_at').notNull(),
});
