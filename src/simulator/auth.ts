import type { IncomingHttpHeaders } from 'node:http';
import type { Scenario } from './scenario.js';

export type Identity = { ok: true; key: string; access: 'full' | 'read-only' } | { ok: false; detail: string };

/**
 * Who is calling: the scenario's `apiKey` may do anything, its `readOnlyKey` only read. REST
 * takes the key as a Bearer token; GraphQL also as the `api_key` query parameter (api-notes §5.1).
 */
export function identify(
  scenario: Pick<Scenario, 'apiKey' | 'readOnlyKey'>,
  headers: IncomingHttpHeaders,
  queryKey?: string | null,
): Identity {
  const key = queryKey || /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  if (!key) return { ok: false, detail: 'missing bearer token' };
  if (key === scenario.apiKey) return { ok: true, key, access: 'full' };
  if (scenario.readOnlyKey !== undefined && key === scenario.readOnlyKey) return { ok: true, key, access: 'read-only' };
  return { ok: false, detail: 'invalid bearer token' };
}
