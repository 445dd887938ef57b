import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import { bearerMatches } from '../metrics/auth.js';
import { hostOf, isAllowedHost } from './allowed-hosts.js';
import { clientAddress } from './client-address.js';

export const SESSION_COOKIE = 'podwarden_session';

/**
 * The cookie's value: an HMAC of a fixed label keyed by the bearer token, so the browser never
 * holds the token itself, and changing the token ends every session.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('podwarden status page session v1').digest('base64url');
}

/** Whether two secrets (a typed token, a session cookie) are the same, in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export function cookies(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) jar.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return jar;
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** https when the connection is TLS, a proxy says so, or the configured public address is https. */
export function servedOverHttps(req: IncomingMessage, config: Config): boolean {
  const forwarded = String(req.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    ?.trim()
    .toLowerCase();
  const tls = (req.socket as { encrypted?: boolean }).encrypted === true;
  return tls || forwarded === 'https' || (config.http.publicUrl?.startsWith('https:') ?? false);
}

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export type Access =
  /** `binding` ties CSRF values to this session (or to loopback access without a token). */
  | { ok: true; binding: string; loopbackOnly: boolean }
  | { ok: false; status: 401 | 403; reason: string; login: boolean };

/**
 * Who may see the status page and use its forms: with `http.bearerToken`, a browser holding the
 * session cookie (or a client sending the bearer header); without one, loopback clients only.
 */
export function pageAccess(req: IncomingMessage, config: Config): Access {
  const token = config.http.bearerToken;
  if (token === undefined) {
    const client = clientAddress(req, config);
    if (isLoopback(client)) return { ok: true, binding: 'loopback', loopbackOnly: true };
    return {
      ok: false,
      status: 403,
      login: false,
      reason: `No http.bearerToken is configured, so the status page is served to loopback clients only (this request came from ${client}); set http.bearerToken to open it to others`,
    };
  }
  const session = sessionValue(token);
  const cookie = cookies(req).get(SESSION_COOKIE);
  if ((cookie !== undefined && sameSecret(cookie, session)) || bearerMatches(req.headers.authorization, token)) {
    return { ok: true, binding: session, loopbackOnly: false };
  }
  return {
    ok: false,
    status: 401,
    login: true,
    reason:
      cookie === undefined
        ? 'Enter the access token to see this page'
        : 'Your session is no longer valid (the token changed); enter the token again',
  };
}

/** Whether the origin names the host and port of a Host header (read with the origin's scheme, for its default port). */
function sameHost(origin: URL, host: string): boolean {
  try {
    return new URL(`${origin.protocol}//${host}`).host === origin.host;
  } catch {
    return false;
  }
}

/**
 * An origin of our own pages: the one of the Host the request was sent to, if that host is one
 * podwarden answers (never a Host taken on its word: after a DNS rebinding it names the
 * attacker's site), publicUrl's, or any of an `http.allowedHosts` name, whose ports and scheme
 * are a proxy's business.
 */
function originAllowed(origin: string, host: string | undefined, config: Config): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (host !== undefined && sameHost(url, host) && isAllowedHost(hostOf(host), config)) return true;
  if (config.http.publicUrl !== undefined && url.origin === new URL(config.http.publicUrl).origin) return true;
  return config.http.allowedHosts.includes(hostOf(url.host));
}

/**
 * Whether a form POST comes from our own pages. Browsers send Origin on every POST and
 * Sec-Fetch-Site on modern ones; a client sending neither (curl) still needs the CSRF value.
 */
export function sameOrigin(req: IncomingMessage, config: Config): { ok: true } | { ok: false; reason: string } {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    return { ok: false, reason: `the form was sent from another site (Sec-Fetch-Site: ${String(site)})` };
  }
  const origin = req.headers.origin;
  // Under Referrer-Policy no-referrer, Chromium sends `Origin: null` on our own forms; then
  // Sec-Fetch-Site (checked above) is what vouches for them. A null origin without it is refused.
  if (origin === 'null') {
    return site === 'same-origin'
      ? { ok: true }
      : { ok: false, reason: 'the form was sent from an opaque origin (Origin: null)' };
  }
  if (origin === undefined) return { ok: true };
  if (!originAllowed(origin, req.headers.host, config)) {
    return { ok: false, reason: `the form was sent from another origin (${origin})` };
  }
  return { ok: true };
}
