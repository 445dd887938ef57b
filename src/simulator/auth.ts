import type { IncomingHttpHeaders } from 'node:http';
import type { Scenario } from './scenario.js';

export type Access = 'full' | 'read-only';

export type Identity = { ok: true; key: string; access: Access } | { ok: false; detail: string };

/**
 * Who is calling: the scenario's `apiKey` may do anything, its `readOnlyKey` only read. REST
 * takes the key as a Bearer token; GraphQL also as the `api_key` query parameter (api-notes §5.1).
 */
export function identify(
  scenario: Pick<Scenario, 'apiKey' | 'readOnlyKey'>,
  headers: IncomingHttpHeaders,
  queryKey?: string | null,
): Identity {
  const key = queryKey || bearerOf(headers.authorization);
  if (!key) return { ok: false, detail: 'missing bearer token' };
  if (key === scenario.apiKey) return { ok: true, key, access: 'full' };
  if (scenario.readOnlyKey !== undefined && key === scenario.readOnlyKey) return { ok: true, key, access: 'read-only' };
  return { ok: false, detail: 'invalid bearer token' };
}

/** The last header read and its token: a client sends the same header on every request. */
let last: { header: string | undefined; token: string | undefined } | undefined;

function bearerOf(header: string | undefined): string | undefined {
  if (last?.header !== header || last === undefined) {
    last = { header, token: /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] };
  }
  return last.token;
}
