import { redact } from '../redact.js';

/**
 * How a failed API call should be treated. Only `transient` and `rate_limited` are worth
 * retrying; `contract` means the API and our reading of its document disagree.
 */
export type ApiErrorKind = 'transient' | 'rate_limited' | 'auth' | 'contract' | 'not_found' | 'conflict' | 'client';

export interface ApiErrorFields {
  kind: ApiErrorKind;
  /** What we were doing, e.g. `GET /pods/{id} (pod-1)`. */
  op: string;
  /** Human detail appended after the op; built from status, title and detail when absent. */
  message?: string;
  status?: number;
  title?: string;
  detail?: string;
  errors?: string[];
  bodySnippet?: string;
  /** How long the server asked us to wait (429 Retry-After). */
  retryAfterMs?: number;
  /** The address that answered, without its query string (where GraphQL may carry the key). */
  url?: string;
  /** Appended in brackets, e.g. why the request was not retried. */
  note?: string;
  cause?: unknown;
}

const SNIPPET_LIMIT = 500;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly op: string;
  readonly status?: number;
  readonly title?: string;
  readonly detail?: string;
  readonly errors?: string[];
  readonly bodySnippet?: string;
  readonly retryAfterMs?: number;
  readonly url?: string;

  constructor(fields: ApiErrorFields) {
    const detail = fields.message ?? describeStatus(fields);
    const note = fields.note ? ` [${fields.note}]` : '';
    super(redact(`${fields.op}: ${detail}${note}`), fields.cause === undefined ? undefined : { cause: fields.cause });
    this.kind = fields.kind;
    this.op = redact(fields.op);
    this.status = fields.status;
    this.title = redactOptional(fields.title);
    this.detail = redactOptional(fields.detail);
    this.errors = fields.errors?.map(redact);
    this.bodySnippet = fields.bodySnippet === undefined ? undefined : snippet(fields.bodySnippet);
    this.retryAfterMs = fields.retryAfterMs;
    this.url = redactOptional(fields.url);
  }

  get retryable(): boolean {
    return this.kind === 'transient' || this.kind === 'rate_limited';
  }
}

/**
 * Not a failure: the source has nothing to give (GraphQL retired, an endpoint gone). Logged at
 * debug and recorded, never alerted on (node_exporter's ErrNoData).
 */
export class NoDataError extends Error {
  override readonly name = 'NoDataError';
  readonly op: string;
  readonly status?: number;

  constructor(op: string, reason: string, status?: number) {
    super(redact(`${op}: ${reason}`));
    this.op = redact(op);
    this.status = status;
  }
}

export function kindForStatus(status: number): ApiErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'transient';
  return 'client';
}

/** A body excerpt safe to print: redacted, single-spaced and cut to about 500 characters. */
export function snippet(text: string): string {
  const flat = redact(text).replace(/\s+/g, ' ').trim();
  return flat.length > SNIPPET_LIMIT ? `${flat.slice(0, SNIPPET_LIMIT)}…` : flat;
}

/** `404 Not Found: pod not found (first error; second error)`. */
function describeStatus(fields: ApiErrorFields): string {
  const head = [fields.status, fields.title].filter((part) => part !== undefined && part !== '').join(' ');
  const tail = fields.detail ?? (fields.bodySnippet ? snippet(fields.bodySnippet) : undefined);
  const list = fields.errors?.length ? ` (${fields.errors.join('; ')})` : '';
  const text = [head, tail].filter(Boolean).join(': ');
  return `${text || fields.kind}${list}`;
}

function redactOptional(value: string | undefined): string | undefined {
  return value === undefined ? undefined : redact(value);
}
