import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { LINK_ACTIONS, type LinkClaims } from './claims.js';

/**
 * A token is `<payload>.<signature>`, both base64url: the payload is the claims as compact JSON,
 * the signature HMAC-SHA256 of the payload's text under the link secret. Every claim is signed,
 * so changing one byte of the payload (the Pod, the duration, the expiry) breaks the signature.
 */

/**
 * Each claim's key on the wire, in the payload's order, and what it must be. Short keys keep the
 * URL short enough for mail clients that wrap long lines.
 */
const WIRE: Record<keyof LinkClaims, [key: string, schema: z.ZodType]> = {
  action: ['a', z.enum(LINK_ACTIONS)],
  account: ['c', z.string()],
  subject: ['s', z.string()],
  until: ['u', z.number()],
  durationMs: ['d', z.number().nullable()],
  label: ['l', z.string()],
  recipient: ['r', z.string()],
  expiresAt: ['e', z.number()],
  nonce: ['n', z.string()],
  timeZone: ['z', z.string()],
  episode: ['p', z.number().nullable()],
};
const FIELDS = Object.entries(WIRE) as [keyof LinkClaims, [string, z.ZodType]][];
const Wire = z.object(Object.fromEntries(FIELDS.map(([, [key, schema]]) => [key, schema])));

export function signLink(secret: Buffer, claims: LinkClaims): string {
  const wire = Object.fromEntries(FIELDS.map(([claim, [key]]) => [key, claims[claim]]));
  const payload = Buffer.from(JSON.stringify(wire)).toString('base64url');
  return `${payload}.${signature(secret, payload).toString('base64url')}`;
}

export type TokenReading = { ok: true; claims: LinkClaims } | { ok: false; reason: 'malformed' | 'forged' };

/** The claims of a token whose signature holds; nothing else is checked here (expiry, use, subject). */
export function readToken(secret: Buffer, token: string): TokenReading {
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return { ok: false, reason: 'malformed' };
  const [, payload, given] = match as unknown as [string, string, string];
  const expected = signature(secret, payload);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return { ok: false, reason: 'forged' };
  // Signed by us, so well formed unless the format changed under it: still checked, never trusted blindly.
  const claims = parseWire(Buffer.from(payload, 'base64url').toString('utf8'));
  return claims ? { ok: true, claims } : { ok: false, reason: 'malformed' };
}

function signature(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

function parseWire(text: string): LinkClaims | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const wire = Wire.safeParse(json);
  if (!wire.success) return undefined;
  return Object.fromEntries(FIELDS.map(([claim, [key]]) => [claim, wire.data[key]])) as unknown as LinkClaims;
}
