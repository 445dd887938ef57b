import { STATUS_CODES } from 'node:http';

/** What the REST router answers; the HTTP server writes it out. */
export interface RestReply {
  status: number;
  body?: unknown;
  /** The body already encoded as UTF-8 (exactly JSON.stringify(body)), so the server need not encode it. */
  bytes?: Buffer;
  /** `bytes` as text, for tests. */
  readonly json?: string;
  headers?: Record<string, string>;
}

export function ok(body: unknown): RestReply {
  return { status: 200, body, headers: { 'content-type': 'application/json' } };
}

/**
 * A 200 whose body was built as JSON bytes (hourly billing, assembled from
 * parts kept encoded). The server sends the bytes; `json` and `body` are decoded from them only
 * if someone reads them (the router's own tests do), so the common path never builds the
 * records as objects, nor their text.
 */
export function okBytes(bytes: Buffer): RestReply {
  return new BytesReply(bytes);
}

/** A class rather than an object literal with getters, which V8 builds on a slow path. */
class BytesReply implements RestReply {
  readonly status = 200;
  headers: Record<string, string> = { 'content-type': 'application/json' };
  private decoded: unknown;

  constructor(readonly bytes: Buffer) {}

  get json(): string {
    return this.bytes.toString('utf8');
  }

  get body(): unknown {
    this.decoded ??= JSON.parse(this.bytes.toString('utf8'));
    return this.decoded;
  }
}

export function noContent(): RestReply {
  return { status: 204 };
}

/** An RFC 9457 problem, as v2 sends every error (`ErrorResponse`), titled with the status's reason phrase. */
export function problem(
  status: number,
  detail: string,
  errors?: string[],
  headers?: Record<string, string>,
): RestReply {
  const body: { title: string; status: number; detail: string; errors?: string[] } = {
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
  };
  if (errors && errors.length > 0) body.errors = errors;
  return { status, body, headers: { 'content-type': 'application/problem+json', ...headers } };
}

/**
 * A request the document's rules refuse. RunPod (a Huma service, judging by its messages)
 * answers a parameter that breaks its schema (type, enum, pattern, minimum) with 422 and the
 * list of failures, and one that breaks a rule between parameters (product without include,
 * lastN with startTime) with 400; the document says so for countryCodes and the CUDA filters.
 */
export class RequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 422,
    detail: string,
    readonly errors?: string[],
  ) {
    super(detail);
  }

  toReply(): RestReply {
    return problem(this.status, this.message, this.errors);
  }
}

export function badRequest(detail: string): RequestError {
  return new RequestError(400, detail);
}

export function notFound(detail: string): RequestError {
  return new RequestError(404, detail);
}
