import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF values for the forms that act: an HMAC of a purpose and what the form is bound to (the
 * link's token, or the session cookie), under the link secret. A page from another origin cannot
 * read it, so it cannot forge the POST; no server-side state is needed.
 */
export function csrfFor(secret: Buffer, purpose: string, binding: string): string {
  return createHmac('sha256', secret).update(`csrf\0${purpose}\0${binding}`).digest('base64url');
}

export function csrfMatches(secret: Buffer, purpose: string, binding: string, value: string): boolean {
  const expected = Buffer.from(csrfFor(secret, purpose, binding));
  const actual = Buffer.from(value);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
