-- Hand-written (drizzle-kit generate --custom): the digests of billing_digests are now taken over
-- the text of each bucket's records as the API sent them (src/db/billing-digest.ts), no longer
-- over their decoded fields. An old digest must never be compared with a new one, so all are
-- dropped: a bucket without a digest is compared row by row on its next re-read, which writes
-- the new one. No row of billing_records changes.
DELETE FROM `billing_digests`;
