import { createHmac, timingSafeEqual } from 'node:crypto';
import { LINK_ACTIONS, type LinkClaims } from './claims.js';

/**
 * A token is `<payload>.<signature>`, both base64url: the payload is the claims as compact JSON,
 * the signature HMAC-SHA256 of the payload's text under the link secret. Every claim is signed,
 * so changing one byte of the payload (the Pod, the duration, the expiry) breaks the signature.
 */

/** Short keys keep the URL short enough for mail clients that wrap long lines. */
type Wire = {
  a: LinkClaims['action'];
  c: string;
  s: string;
  u: number;
  d: number | null;
  l: string;
  r: string;
  e: number;
  n: string;
  z: string;
  p: number | null;
};

export function signLink(secret: Buffer, claims: LinkClaims): string {
  const wire: Wire = {
    a: claims.action,
    c: claims.account,
    s: claims.subject,
    u: claims.until,
    d: claims.durationMs,
    l: claims.label,
    r: claims.recipient,
    e: claims.expiresAt,
    n: claims.nonce,
    z: claims.timeZone,
    p: claims.episode,
  };
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
  let wire: Partial<Wire>;
  try {
    wire = JSON.parse(text) as Partial<Wire>;
  } catch {
    return undefined;
  }
  const str = (v: unknown): v is string => typeof v === 'string';
  const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (
    !LINK_ACTIONS.includes(wire.a as LinkClaims['action']) ||
    ![wire.c, wire.s, wire.l, wire.r, wire.n, wire.z].every(str) ||
    !num(wire.u) ||
    !num(wire.e) ||
    !(wire.d === null || num(wire.d)) ||
    !(wire.p === null || num(wire.p))
  ) {
    return undefined;
  }
  return {
    action: wire.a as LinkClaims['action'],
    account: wire.c as string,
    subject: wire.s as string,
    until: wire.u,
    durationMs: wire.d,
    label: wire.l as string,
    recipient: wire.r as string,
    expiresAt: wire.e,
    nonce: wire.n as string,
    timeZone: wire.z as string,
    episode: wire.p,
  };
}
