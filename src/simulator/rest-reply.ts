import { STATUS_CODES } from 'node:http';
import type { SimReply } from './reply.js';
import type { World } from './world.js';

/** What the REST router answers (never a raw body); the HTTP server writes it out. */
export type RestReply = Omit<SimReply, 'raw'>;

/** What a route's handler is given. */
export interface HandlerInput {
  world: World;
  /** The path's `{id}`, decoded ('' on a path without one). */
  id: string;
  query: URLSearchParams;
  body: unknown;
  t: number;
}

export function ok(body: unknown): RestReply {
  return { status: 200, body, headers: { 'content-type': 'application/json' } };
}

export function noContent(): RestReply {
  return { status: 204 };
}

/** An RFC 9457 problem, as v2 sends every error (`ErrorResponse`), titled with the status's reason phrase. */
export function problem(
  status: number,
  detail: string,
  headers?: Record<string, string>,
  errors?: string[],
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
 * A request the document's rules refuse, as RunPod (a Huma service) answers: 422 and the list of
 * failures for a parameter that breaks its schema, 400 for one that breaks a rule between parameters.
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
    return problem(this.status, this.message, {}, this.errors);
  }
}

export function badRequest(detail: string): RequestError {
  return new RequestError(400, detail);
}

export function notFound(detail: string): RequestError {
  return new RequestError(404, detail);
}
