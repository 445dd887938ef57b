import { isIP } from 'node:net';
import { z } from 'zod';

// The fields of `http` that guard the status page: which Host names it answers and whose
// X-Forwarded-For it believes (src/web/allowed-hosts.ts, src/web/client-address.ts).

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** A host name as a Host header names it: lowercase, without a trailing dot, port or brackets. */
export function normalHostName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** `http.allowedHosts`: names such as `podwarden.internal` (an IP address is allowed anyway). */
export function allowedHostsField() {
  return z
    .array(
      z
        .string()
        .transform(normalHostName)
        .refine((name) => HOST_NAME.test(name) || isIP(name) !== 0, {
          error: (issue) =>
            `invalid host name "${String(issue.input)}" (expected a name such as podwarden.internal, without scheme, port or path)`,
        }),
    )
    .default([]);
}

/** `10.0.0.5` → `{ address, prefix: undefined }`; `10.0.0.0/8` → `{ address: '10.0.0.0', prefix: 8 }`. */
export function parseAddressOrRange(text: string): { address: string; prefix: number | undefined } | undefined {
  const [address = '', prefix, extra] = text.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  if (prefix === undefined) return { address, prefix: undefined };
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
  return bits <= (family === 4 ? 32 : 128) ? { address, prefix: bits } : undefined;
}

/** `http.trustedProxies`: IP addresses or CIDR ranges. */
export function trustedProxiesField() {
  return z
    .array(
      z.string().refine((text) => parseAddressOrRange(text) !== undefined, {
        error: (issue) =>
          `invalid proxy address "${String(issue.input)}" (expected an IP address or a CIDR range such as 10.0.0.0/8)`,
      }),
    )
    .default([]);
}
