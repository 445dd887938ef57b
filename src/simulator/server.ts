import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';
import { type Logger, silentLogger } from '../log.js';
import { identify } from './auth.js';
import { faultReply, planFaults } from './faults.js';
import { failure, handleGraphql } from './graphql.js';
import { RateLimiter } from './rate-limit.js';
import { type EncodedReply, encodeReply, type SimReply } from './reply.js';
import { RequestLog } from './request-log.js';
import { handleRest } from './rest.js';
import { problem } from './rest-reply.js';
import type { Scenario } from './scenario.js';
import { handleTruth } from './truth.js';
import { World } from './world.js';

export interface SimulatorOptions {
  scenario: Scenario;
  clock: Clock;
  /** Defaults to 127.0.0.1. */
  host?: string;
  /** Defaults to 0: any free port. */
  port?: number;
  log?: Logger;
}

/** A running simulator: its URLs, its world and request log, an in-process road in and a way to stop. */
export type Simulator = Awaited<ReturnType<typeof startSimulator>>;

/** A request as the gates read it; the body is read only once authentication has been looked at. */
interface SimRequest {
  method: string;
  /** Path and query, as on the request line. */
  url: string;
  headers: IncomingHttpHeaders;
  body(): Promise<string>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** What one request came to: a reply, or a dropped connection. */
type Outcome = { reply: SimReply | 'reset'; fault?: string };

/**
 * The RunPod API as an HTTP server (node:http, no framework). Each request reads the clock once
 * and goes through the same gates as the real service, in order: authentication, rate limits,
 * permission, scenario faults, then the REST v2 router or the GraphQL executor.
 */
export async function startSimulator(options: SimulatorOptions) {
  const { scenario, clock } = options;
  const log = options.log ?? silentLogger();
  const world = new World(scenario);
  const requestLog = new RequestLog();
  const limiter = scenario.rateLimit ? new RateLimiter(scenario.rateLimit) : undefined;
  const closing = new AbortController();

  const serve = async (req: SimRequest, path: string, query: URLSearchParams, nowMs: number): Promise<Outcome> => {
    const method = req.method;
    const rawBody = await req.body();
    const isGraphql = path === '/graphql';
    if (!isGraphql && path !== '/v2' && !path.startsWith('/v2/')) {
      return { reply: problem(404, `no route ${path}: the API lives under /v2 and /graphql`) };
    }
    const identity = identify(scenario, req.headers, isGraphql ? query.get('api_key') : undefined);
    if (!identity.ok) {
      return {
        reply: isGraphql ? failure(401, 'UNAUTHENTICATED', identity.detail) : problem(401, identity.detail),
      };
    }
    // RunPod publishes rate limits for REST v2 only; GraphQL has none documented (api-notes §5.4).
    const limit = isGraphql ? undefined : limiter?.take(identity.key, nowMs);
    const headers = limit?.headers ?? {};
    if (limit?.exceeded) {
      return { reply: problem(429, `rate limit exceeded for the ${limit.exceeded.window} window`, headers) };
    }
    // GraphQL sends every operation as a POST; it refuses a read-only key's mutations itself.
    if (!isGraphql && identity.access === 'read-only' && method !== 'GET' && method !== 'HEAD') {
      return { reply: problem(403, 'access denied', headers) };
    }
    const plan = planFaults(scenario.faults, path, nowMs);
    if (plan.latencyMs > 0) await clock.sleep(plan.latencyMs, closing.signal);
    if (plan.breaking) return { reply: faultReply(plan.breaking, path, headers), fault: plan.label };
    const body = parseJson(rawBody);
    if (body instanceof SyntaxError) {
      const detail = `request body is not valid JSON: ${body.message}`;
      return {
        reply: isGraphql ? failure(400, 'BAD_REQUEST', detail) : problem(400, detail, headers),
        fault: plan.label,
      };
    }
    if (isGraphql) {
      const reply = handleGraphql({ world, nowMs, method, body, readOnly: identity.access === 'read-only' });
      return { reply, fault: plan.label };
    }
    const reply = handleRest(world, { method, path, query, body }, nowMs);
    reply.headers = { ...headers, ...reply.headers };
    return { reply, fault: plan.label };
  };

  /** One request, from its arrival to its reply: 'closed' when the simulator closed meanwhile. */
  const answer = async (req: SimRequest): Promise<SimReply | 'reset' | 'closed'> => {
    const started = performance.now();
    const nowMs = clock.now();
    const target = targetOf(req.url);
    const path = target.pathname;
    const method = req.method;
    let outcome: Outcome;
    try {
      // A fresh copy per request: the handlers are given a query of their own.
      const query = new URLSearchParams(target.search);
      if (path.startsWith('/_sim/')) {
        const ctx = { world, requestLog, nowMs };
        return handleTruth(method, path, query, ctx);
      }
      outcome = await serve(req, path, query, nowMs);
    } catch (error) {
      if (closing.signal.aborted) return 'closed';
      if (error instanceof BodyTooLargeError) outcome = { reply: problem(413, error.message) };
      else {
        log.error({ err: error, method, path }, 'simulator: request failed');
        outcome = { reply: problem(500, `simulator error: ${(error as Error).message}`) };
      }
    }
    const status = outcome.reply === 'reset' ? null : outcome.reply.status;
    requestLog.record({
      method,
      path,
      query: target.logQuery,
      status,
      atMs: nowMs,
      durationMs: performance.now() - started,
      ...(outcome.fault ? { fault: outcome.fault } : {}),
    });
    log.debug({ method, path, status, fault: outcome.fault }, 'simulator request');
    return outcome.reply;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = await answer({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      headers: req.headers,
      body: () => readBody(req),
    });
    if (reply === 'closed') res.destroy();
    else if (reply === 'reset') req.socket.destroy();
    else {
      const { status, headers, bytes } = encodeReply(reply);
      res.writeHead(status, headers).end(bytes);
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.info({ url, scenario: scenario.name }, 'simulator listening');
  return {
    url,
    restBaseUrl: `${url}/v2`,
    graphqlUrl: `${url}/graphql`,
    world,
    requestLog,
    /**
     * One request answered in this process, through the same gates, faults and request log as
     * over HTTP, without the sockets: for a replay, where the simulator and the daemon share a
     * process and a virtual clock. 'reset' is a connection dropped unanswered.
     */
    exchange: async (req: Omit<SimRequest, 'body'> & { body: string }): Promise<EncodedReply | 'reset'> => {
      const reply = await answer({ ...req, body: async () => checkedSize(req.body) });
      return reply === 'reset' || reply === 'closed' ? 'reset' : encodeReply(reply);
    },
    close: (): Promise<void> =>
      new Promise<void>((resolve, reject) => {
        closing.abort(new Error('simulator closing'));
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * The request line's target as the URL parser reads it (dot segments, percent-encoding), and its
 * query for the request log with GraphQL's `api_key` masked: keys never reach a log.
 */
function targetOf(requestUrl: string) {
  const url = new URL(requestUrl, 'http://simulator');
  const logged = new URLSearchParams(url.searchParams);
  if (logged.has('api_key')) logged.set('api_key', '[REDACTED]');
  return { pathname: url.pathname, search: url.search, logQuery: logged.toString() };
}

class BodyTooLargeError extends Error {
  constructor() {
    super(`request body exceeds ${MAX_BODY_BYTES} bytes`);
  }
}

function checkedSize(body: string): string {
  if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new BodyTooLargeError();
  return body;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The parsed body, undefined when there is none, or the SyntaxError that parsing raised. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
}
