import { type ServerResponse, STATUS_CODES } from 'node:http';

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

/** An RFC 9457 problem as the v2 document's `ErrorResponse`: title, status, detail, optional errors. */
export function problemReply(
  status: number,
  detail: string,
  headers: Record<string, string> = {},
  errors?: string[],
): SimReply {
  const title = STATUS_CODES[status] ?? 'Error';
  return {
    status,
    body: errors ? { title, status, detail, errors } : { title, status, detail },
    headers: { 'Content-Type': PROBLEM_JSON, ...headers },
  };
}

/** Writes a reply; errors get problem+json and everything else JSON unless headers say otherwise. */
export function sendReply(res: ServerResponse, reply: SimReply): void {
  const headers: Record<string, string> = { ...reply.headers };
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  let payload: string | undefined;
  if (reply.raw !== undefined) payload = reply.raw;
  else if (reply.body !== undefined && reply.status !== 204) payload = JSON.stringify(reply.body);
  if (payload !== undefined && !hasContentType) {
    headers['Content-Type'] = reply.status >= 400 ? PROBLEM_JSON : 'application/json';
  }
  if (payload !== undefined) headers['Content-Length'] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}
