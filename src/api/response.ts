import { type ApiErrorFields, kindForStatus } from './errors.js';
import { ErrorResponse } from './schemas/problem.js';

/** Any of the problem's fields: built once, since `partial()` makes (and later compiles) a new schema. */
const PartialProblem = ErrorResponse.partial();

/** Who answered and how: the URL without its query (GraphQL may carry the key there). */
export interface Answerer {
  url: string;
  contentType?: string;
  location?: string;
}

/**
 * Decodes a 2xx body: empty (204) is `undefined`; anything else must be JSON, read by
 * JSON.parse alone (a repeated key is its last value).
 */
export function decodeSuccessBody(
  op: string,
  status: number,
  text: string,
  from: Answerer,
): { body: unknown } | ApiErrorFields {
  if (status === 204 || text.trim() === '') return { body: undefined };
  const contract = (message: string): ApiErrorFields => ({
    kind: 'contract',
    op,
    status,
    url: from.url,
    message,
    bodySnippet: text,
  });
  // A captive portal, a proxy's login page or a docs site at a mistyped URL all answer 200.
  if (isHtml(text, from.contentType))
    return contract(`expected JSON from ${from.url}, got ${describeHtml(text, from.contentType)}`);
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    return contract(`response body is not valid JSON (${(error as Error).message})`);
  }
}

/**
 * Turns a non-2xx answer into error fields: v2 problem+json (title, detail, errors[]) or a
 * GraphQL `errors[]` envelope; anything else keeps the status and a body excerpt.
 */
export function errorFromResponse(
  op: string,
  status: number,
  text: string,
  from: Answerer,
  retryAfterMs?: number,
): ApiErrorFields {
  const fields: ApiErrorFields = { kind: kindForStatus(status), op, status, bodySnippet: text, retryAfterMs };
  fields.url = from.url;
  if (status >= 300 && status < 400) {
    // We never follow redirects: the key would travel to wherever they point.
    const to = from.location ? `to ${from.location}` : 'without a Location';
    return { ...fields, message: `${status} redirect from ${from.url} ${to}, where a JSON answer was expected` };
  }
  if (isHtml(text, from.contentType)) {
    return { ...fields, message: `${status} from ${from.url}: ${describeHtml(text, from.contentType)}, not JSON` };
  }
  const json = tryJson(text);
  const problem = PartialProblem.safeParse(json);
  if (problem.success && (problem.data.title !== undefined || problem.data.detail !== undefined)) {
    return { ...fields, title: problem.data.title, detail: problem.data.detail, errors: problem.data.errors };
  }
  const messages = graphqlMessages(json);
  if (messages.length > 0) return { ...fields, detail: messages[0], errors: messages.slice(1) };
  return fields;
}

function graphqlMessages(json: unknown): string[] {
  const errors = (json as { errors?: unknown } | null | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry) => (typeof entry?.message === 'string' ? [entry.message as string] : []));
}

function isHtml(text: string, contentType: string | undefined): boolean {
  if (contentType?.toLowerCase().includes('html')) return true;
  return /^\s*<(!doctype html|html|head|body)\b/i.test(text);
}

/** `an HTML page (text/html, title "Page not found")`. */
function describeHtml(text: string, contentType: string | undefined): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  const parts = [contentType?.split(';')[0]?.trim(), title ? `title "${title.slice(0, 80)}"` : undefined];
  const inside = parts.filter(Boolean).join(', ');
  return inside ? `an HTML page (${inside})` : 'an HTML page';
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type NetworkTimeouts = Record<'connectMs' | 'headersMs' | 'bodyMs', number>;

/** Network-level failures (no HTTP status): all worth another try for an idempotent request. */
export function errorFromNetwork(op: string, error: unknown, timeouts: NetworkTimeouts): ApiErrorFields {
  const code = (error as { code?: string }).code;
  const raw = error instanceof Error ? error.message : String(error);
  return { kind: 'transient', op, message: describeNetworkError(code, raw, timeouts), cause: error };
}

function describeNetworkError(code: string | undefined, raw: string, timeouts: NetworkTimeouts): string {
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `connect timeout: no connection within ${timeouts.connectMs}ms`;
    case 'UND_ERR_HEADERS_TIMEOUT':
      return `headers timeout: no response within ${timeouts.headersMs}ms`;
    case 'UND_ERR_BODY_TIMEOUT':
      return `body timeout: response body stalled for ${timeouts.bodyMs}ms`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return `connection reset (${raw})`;
    case 'ECONNREFUSED':
      return `connection refused (${raw})`;
    default:
      return `request failed (${code ? `${code}: ` : ''}${raw})`;
  }
}
