import { z } from 'zod';
import { duration, httpUrl, type ParseContext } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';
import { allowedHostsField, trustedProxiesField } from './http-guards.js';

const LISTEN = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/** `0.0.0.0:9464` → `{ host: '0.0.0.0', port: 9464 }`; `[::]:9464` → `{ host: '::', port: 9464 }`; port 0 picks a free one. */
export function parseListen(listen: string): { host: string; port: number } | undefined {
  const match = LISTEN.exec(listen);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) return undefined;
  return { host: (match[1] ?? match[2]) as string, port };
}

/**
 * `http`: the metrics and status server. It listens on every interface by default because it
 * normally runs in a container whose port is published; outside one, prefer 127.0.0.1:9464
 * or set a bearer token.
 */
export function httpSection(ctx: ParseContext) {
  return withSecret(
    z.strictObject({
      listen: z
        .string()
        .refine((listen) => parseListen(listen) !== undefined, {
          error: (issue) =>
            `invalid listen address "${String(issue.input)}" (expected host:port, e.g. 0.0.0.0:9464 or [::]:9464)`,
        })
        .default('0.0.0.0:9464'),
      /** Where people reach this server (behind a proxy, say): links to the status page are made from it. */
      publicUrl: httpUrl().optional(),
      /** Host names served besides loopback names, IP addresses and publicUrl's host (DNS rebinding). */
      allowedHosts: allowedHostsField(),
      /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client. */
      trustedProxies: trustedProxiesField(),
      /** When set, /metrics, /readyz and /api/status need `Authorization: Bearer <token>`; the status page takes it once in a login form. */
      ...secretShape('bearerToken', ctx),
      /**
       * Signs the action links of emails (keep running, silence). Without it, one is generated on
       * first start and kept in the database, so links survive restarts; set it to share it
       * between replicas or to invalidate every mailed link by changing it.
       */
      // A short secret can be guessed offline from one mailed link: demand what a password manager makes.
      ...secretShape('linkSecret', ctx, { minLength: 16 }),
      /** How long an emailed link works at most (never beyond what it offers). */
      linkExpiry: duration().prefault('24h'),
    }),
    ['bearerToken', 'linkSecret'],
    { required: false },
  )
    .transform(({ linkExpiry, ...http }) => ({ ...http, linkExpiryMs: linkExpiry }))
    .prefault({});
}
