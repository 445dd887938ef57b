import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { version } from '../package-root.js';
import { redact, registerSecret } from '../redact.js';
import { bodyText, decodedBody, UnknownContentEncoding } from './content-encoding.js';
import { ApiError, type ApiErrorFields } from './errors.js';
import type { LocalExchange } from './local-exchange.js';
import { type BudgetTicket, parseRetryAfter, type RateLimitBudget } from './rate-limit.js';
import { decodeSuccessBody, errorFromNetwork, errorFromResponse, type NetworkTimeouts } from './response.js';
import { type RequestPriority, Semaphore } from './semaphore.js';

export interface RequestEvent {
  /** The templated path (`/pods/{id}`), so metric labels stay bounded. */
  route: string;
  method: string;
  status: number | 'error';
  durationMs: number;
}

export interface ApiClientOptions {
  restBaseUrl: string;
  graphqlBaseUrl: string;
  apiKey: string;
  /** Where GraphQL takes the key: the Authorization header, or the `api_key` query parameter. */
  graphqlAuth: 'header' | 'query';
  clock: Clock;
  log: Logger;
  timeouts: NetworkTimeouts;
  retries: { max: number; baseDelayMs: number; maxDelayMs: number };
  /** Requests in flight at once for one account, REST and GraphQL, until the answer's last byte arrives. */
  concurrency: number;
  /** Longest we wait for a rate-limit window (pacing or Retry-After) before failing; default 120 s. */
  maxRateLimitWaitMs?: number;
  /** For jitter; defaults to Math.random. */
  random?: () => number;
  onRequest?: (event: RequestEvent) => void;
  /** Told of each real exchange (not of clock waits): a virtual clock moves only while none is on its way. */
  inflight?: { track<T>(work: Promise<T>): Promise<T> };
  /** Answers requests in this process instead of the network (a replay's simulators). */
  local?: LocalExchange;
}

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface ApiRequest {
  target: 'rest' | 'graphql';
  method: 'GET' | 'POST';
  /** Templated path relative to the base URL, e.g. `/pods/{id}`; `/graphql` for GraphQL. */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Who gets a free slot first (default `normal`); see semaphore.ts. */
  priority?: RequestPriority;
  /** Safe to repeat after a 5xx, a timeout or a reset. A 429 is retried regardless. */
  idempotent: boolean;
  /** Shown in parentheses after the route in errors and logs; defaults to the path parameters. */
  label?: string;
  signal?: AbortSignal;
}

export interface ApiResponse {
  op: string;
  status: number;
  /** Decoded JSON, or undefined for an empty body (204). */
  body: unknown;
}

const DEFAULT_MAX_RATE_LIMIT_WAIT_MS = 120_000;
/** Retry-After values beyond a week are treated as a week: anything longer is not a plan. */
const RETRY_AFTER_SANITY_CAP_MS = 7 * 24 * 3600_000;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

type Attempt = { ok: true; response: ApiResponse } | { ok: false; error: ApiErrorFields };

/** What came back, over the wire or in process, its body read whole as text. */
interface Exchanged {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Decodes in-process answers as undici's `body.text()` does (UTF-8, a leading BOM dropped). */
const utf8 = new TextDecoder();

/**
 * The only code that talks HTTP to RunPod: auth, timeouts, the shared concurrency limit,
 * rate-limit pacing, retries with backoff, and error classification. Every error and log
 * line is redacted; the key travels only in the Authorization header (or GraphQL's api_key).
 */
export class HttpTransport {
  private readonly agent: Dispatcher;
  private readonly semaphore: Semaphore;
  private readonly userAgent = `podwarden/${version}`;
  private readonly maxRateLimitWaitMs: number;
  private readonly random: () => number;
  /** The REST base URL without trailing slashes, for the route to follow. */
  private readonly restBase: string;

  constructor(
    private readonly options: ApiClientOptions,
    private readonly budget: RateLimitBudget,
  ) {
    registerSecret(options.apiKey);
    this.agent = new Agent({
      connect: { timeout: options.timeouts.connectMs },
      headersTimeout: options.timeouts.headersMs,
      bodyTimeout: options.timeouts.bodyMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
    this.semaphore = new Semaphore(options.concurrency);
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? DEFAULT_MAX_RATE_LIMIT_WAIT_MS;
    this.random = options.random ?? Math.random;
    this.restBase = options.restBaseUrl.replace(/\/+$/, '');
  }

  /** Sends with retries; resolves with a 2xx response, otherwise throws ApiError. */
  async send(req: ApiRequest): Promise<ApiResponse> {
    const op = opName(req);
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(req, op);
      if (outcome.ok) return outcome.response;
      const error = outcome.error;
      const delay = this.retryDelay(req, error, attempt);
      if (delay === undefined) throw new ApiError({ ...error, note: this.noRetryNote(req, error, attempt) });
      this.options.log.warn(
        {
          route: req.route,
          method: req.method,
          attempt: attempt + 1,
          delayMs: Math.round(delay),
          error: redact(new ApiError(error).message),
        },
        'api request failed; retrying',
      );
      if (delay > 0) await this.options.clock.sleep(delay, req.signal);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private async attempt(req: ApiRequest, op: string): Promise<Attempt> {
    const url = this.url(req);
    const headers = this.headers(req);
    const release = await this.semaphore.acquire(req.priority);
    let ticket: BudgetTicket | undefined;
    let started: number | undefined;
    let status: number | 'error' = 'error';
    try {
      ticket = await this.budget.acquire(op, this.maxRateLimitWaitMs, req.signal);
      started = performance.now();
      const body = req.body === undefined ? undefined : JSON.stringify(req.body);
      const local = this.options.local;
      const exchange = async (): Promise<Exchanged> => {
        if (local !== undefined) {
          // What undici does with a signal aborted before the request or while it was answered.
          if (req.signal?.aborted) throw req.signal.reason;
          const reply = await local({ method: req.method, url, headers, body });
          if (req.signal?.aborted) throw req.signal.reason;
          status = reply.status;
          const text = reply.bytes === undefined ? '' : utf8.decode(reply.bytes);
          // The whole answer has arrived: its place goes to the next request before it is read.
          release();
          return { status, headers: reply.headers, text };
        }
        // undici drops its abort listener a tick after the body is read, so a run's answers that
        // arrive together gather listeners on its signal for that tick: not a leak.
        if (req.signal !== undefined) setMaxListeners(0, req.signal);
        const response = await request(url, {
          method: req.method,
          headers,
          body,
          signal: req.signal,
          dispatcher: this.agent,
        });
        status = response.statusCode;
        const text = await bodyText(decodedResponseBody(op, status, response));
        release();
        return { status, headers: response.headers, text };
      };
      const { status: code, headers: answered, text } = await (this.options.inflight?.track(exchange()) ?? exchange());
      const location = header(answered, 'location');
      const from = {
        url: withoutQuery(url),
        contentType: header(answered, 'content-type'),
        location: location === undefined ? undefined : withoutQuery(location),
      };
      this.budget.observe(ticket, header(answered, 'ratelimit'), header(answered, 'ratelimit-policy'));
      if (code >= 200 && code < 300) {
        const decoded = decodeSuccessBody(op, code, text, from);
        return 'body' in decoded
          ? { ok: true, response: { op, status: code, body: decoded.body } }
          : { ok: false, error: decoded };
      }
      const now = this.options.clock.now();
      const retryAfterMs = parseRetryAfter(header(answered, 'retry-after'), now, RETRY_AFTER_SANITY_CAP_MS);
      if (code === 429 && retryAfterMs !== undefined) this.budget.blockFor(retryAfterMs);
      return { ok: false, error: errorFromResponse(op, code, text, from, retryAfterMs) };
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (error instanceof ApiError) throw error;
      return { ok: false, error: errorFromNetwork(op, error, this.options.timeouts) };
    } finally {
      if (ticket) this.budget.release(ticket);
      release();
      if (started !== undefined) this.report(req, status, performance.now() - started);
    }
  }

  /** Milliseconds to wait before the next attempt, or undefined to give up. */
  private retryDelay(req: ApiRequest, error: ApiErrorFields, attempt: number): number | undefined {
    if (attempt >= this.options.retries.max) return undefined;
    if (error.kind === 'rate_limited') {
      // A 429 means the request was not processed, so repeating it is safe for any method.
      // Without Retry-After, the budget knows the window's reset from the RateLimit header.
      const wait = error.retryAfterMs ?? this.budget.delayMs();
      if (wait > this.maxRateLimitWaitMs) return undefined;
      return wait > 0 ? wait : this.backoff(attempt);
    }
    if (error.kind === 'transient' && req.idempotent) {
      // A 503 with Retry-After says when the server expects to be back (RFC 9110 §10.2.3):
      // waiting that long, within the same cap as a 429, beats hammering it on our backoff.
      if (error.retryAfterMs !== undefined) {
        return error.retryAfterMs > this.maxRateLimitWaitMs ? undefined : Math.max(error.retryAfterMs, 0);
      }
      return this.backoff(attempt);
    }
    return undefined;
  }

  /** Exponential backoff with upper-half jitter: between half and all of base·2^attempt, capped. */
  private backoff(attempt: number): number {
    const { baseDelayMs, maxDelayMs } = this.options.retries;
    const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
    return ceiling / 2 + this.random() * (ceiling / 2);
  }

  private noRetryNote(req: ApiRequest, error: ApiErrorFields, attempt: number): string | undefined {
    if (error.kind === 'transient' && !req.idempotent) {
      return `not retried: ${req.method} ${req.route} is not idempotent, the outcome is unknown`;
    }
    if (
      (error.kind === 'rate_limited' || error.kind === 'transient') &&
      (error.retryAfterMs ?? 0) > this.maxRateLimitWaitMs
    ) {
      return `not retried: Retry-After ${Math.ceil((error.retryAfterMs ?? 0) / 1000)}s exceeds the ${this.maxRateLimitWaitMs / 1000}s limit`;
    }
    if (attempt > 0) return `after ${attempt + 1} attempts`;
    return undefined;
  }

  private url(req: ApiRequest): string {
    // Most routes have no path parameter: no pattern to run for them.
    const path = req.route.includes('{')
      ? req.route.replace(/\{(\w+)\}/g, (_, name: string) => {
          const value = req.params?.[name];
          if (value === undefined) throw new Error(`${req.route}: missing path parameter ${name}`);
          return encodeURIComponent(value);
        })
      : req.route;
    const query =
      req.target === 'graphql' && this.options.graphqlAuth === 'query'
        ? { ...req.query, api_key: this.options.apiKey }
        : req.query;
    const search = query === undefined ? '' : encodeQuery(query);
    const joined = req.target === 'rest' ? `${this.restBase}${path}` : this.options.graphqlBaseUrl;
    return search ? `${joined}${joined.includes('?') ? '&' : '?'}${search}` : joined;
  }

  private headers(req: ApiRequest): Record<string, string> {
    const headers: Record<string, string> = {
      'user-agent': this.userAgent,
      accept: 'application/json',
      // A compressed answer is undone if a server sends one anyway (content-encoding.ts).
      'accept-encoding': 'identity',
    };
    if (req.target === 'rest' || this.options.graphqlAuth === 'header') {
      headers.authorization = `Bearer ${this.options.apiKey}`;
    }
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  private report(req: ApiRequest, status: number | 'error', durationMs: number): void {
    const rounded = Math.round(durationMs);
    this.options.log.debug({ route: req.route, method: req.method, status, durationMs: rounded }, 'api request');
    try {
      this.options.onRequest?.({ route: req.route, method: req.method, status, durationMs: rounded });
    } catch (error) {
      this.options.log.warn({ error: redact(String(error)) }, 'onRequest hook failed');
    }
  }
}

/** `GET /pods/{id} (pod-1)`: the templated route and what it was called with. */
function opName(req: ApiRequest): string {
  const label = req.label ?? Object.values(req.params ?? {}).join(', ');
  return `${req.method} ${req.route}${label ? ` (${label})` : ''}`;
}

/** Arrays are comma-joined (OpenAPI `style: form, explode: false`), each element encoded. */
function encodeQuery(query: Record<string, QueryValue>): string {
  let search = '';
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const encoded = Array.isArray(value)
      ? value.map((item) => encodeURIComponent(item)).join(',')
      : encodeURIComponent(String(value));
    search += `${search ? '&' : ''}${encodeURIComponent(key)}=${encoded}`;
  }
  return search;
}

/** The URL up to its query: what errors show (GraphQL may carry the key in the query). */
function withoutQuery(url: string): string {
  return url.split('?', 1)[0] as string;
}

/** The body with its content-coding undone; one we cannot undo is a contract error naming it. */
function decodedResponseBody(op: string, status: number, response: Dispatcher.ResponseData): Readable {
  try {
    return decodedBody(response.body, header(response.headers, 'content-encoding'), MAX_RESPONSE_BYTES);
  } catch (error) {
    if (!(error instanceof UnknownContentEncoding)) throw error;
    // The unread body is dropped with its connection; undici reports that as an abort, not ours to hear.
    response.body.on('error', () => {}).destroy();
    throw new ApiError({ kind: 'contract', op, status, message: error.message });
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
