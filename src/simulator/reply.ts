/** What the simulator answers, before it is written to the socket. */
export interface SimReply {
  status: number;
  /** Serialised as JSON unless `raw` is set; absent for 204. */
  body?: unknown;
  /** A body sent verbatim (the `malformed` fault). */
  raw?: string;
  headers?: Record<string, string>;
}

const PROBLEM_JSON = 'application/problem+json';

/** A reply as it goes on the wire: status, headers (Content-Type and Content-Length set) and the body. */
export interface EncodedReply {
  status: number;
  headers: Record<string, string>;
  /** The body as UTF-8, encoded once: Content-Length is its length, and it is what goes out. */
  bytes: Buffer | undefined;
}

/** Errors get problem+json and everything else JSON unless headers say otherwise. */
export function encodeReply(reply: SimReply): EncodedReply {
  const headers: Record<string, string> = { ...reply.headers };
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  let payload: string | undefined;
  if (reply.raw !== undefined) payload = reply.raw;
  else if (reply.body !== undefined && reply.status !== 204) payload = JSON.stringify(reply.body);
  if (payload !== undefined && !hasContentType) {
    headers['Content-Type'] = reply.status >= 400 ? PROBLEM_JSON : 'application/json';
  }
  const bytes = payload === undefined ? undefined : Buffer.from(payload);
  if (bytes !== undefined) headers['Content-Length'] = String(bytes.length);
  return { status: reply.status, headers, bytes };
}
