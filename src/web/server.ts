import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import { formatProblem } from '../config/errors.js';
import type { ConfigReloadStatus, ReloadOutcome } from '../config/reload-status.js';
import type { Config } from '../config/schema.js';
import { parseListen } from '../config/sections/http.js';
import { loadLinkSecret } from '../links/index.js';
import type { Logger } from '../log.js';
import { bearerMatches, OPEN_PROBES } from '../metrics/auth.js';
import { checkReadiness } from '../metrics/readiness.js';
import { createMetrics } from '../metrics/registry.js';
import type { MetricsSource } from '../metrics/source.js';
import { buildStatus } from '../metrics/status.js';
import { redact } from '../redact.js';
import { misdirected } from './allowed-hosts.js';
import { loginAttempts } from './login-attempts.js';
import { htmlReply, type Reply } from './reply.js';
import { webRoute } from './routes.js';

export interface MetricsServerOptions {
  config: Config;
  /** The running daemon (or anything that offers the same read-only views). */
  daemon: MetricsSource;
  clock: Clock;
  log: Logger;
  /** Reads and applies the configuration again, for `POST /-/reload`; absent, that route is not served. */
  reload?: () => Promise<ReloadOutcome>;
  /** How the configuration was last (re)loaded, for podwarden_config_last_reload_*. */
  reloads?: () => ConfigReloadStatus;
}

export interface MetricsServer {
  /** Where to reach it, e.g. `http://127.0.0.1:9464` (a wildcard address is shown as loopback). */
  url: string;
  /**
   * Serves `config` from the next request on, with metrics made again for it (a reload); a
   * request already being answered finishes with the configuration it started with.
   */
  reconfigure(config: Config): void;
  close(): Promise<void>;
}

/**
 * Routes answered whatever Host a request names. Prometheus scrapes a pod by its IP or a service
 * name, and kubelet probes by IP; what these reveal lets no one act, so the DNS rebinding guard
 * (web/allowed-hosts.ts) is for the pages, forms, links and /api/status.
 */
const ANY_HOST_ROUTES = new Set(['/metrics', '/healthz', '/readyz']);

/** A form is a few hundred bytes; anything larger is not one of ours. */
const MAX_FORM_BYTES = 16 * 1024;

/** Where a POST makes podwarden read its configuration file again (Prometheus's path). */
const RELOAD_PATH = '/-/reload';

/** The routes for machines, never handed to the pages; all but the probes need the bearer token when one is configured. */
const API_ROUTES = new Set(['/metrics', '/readyz', '/healthz', '/api/status', RELOAD_PATH]);

const text = (status: number, body: string, headers?: Record<string, string>): Reply => ({
  status,
  type: 'text/plain; charset=utf-8',
  body: `${body}\n`,
  headers,
});

/** The HTTP side of podwarden (node:http): the machines' routes here, the pages in routes.ts. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { daemon, clock, reload, reloads } = options;
  const log = options.log.child({ component: 'http' });
  const listen = parseListen(options.config.http.listen);
  if (!listen) throw new Error(`metrics server: invalid http.listen "${options.config.http.listen}"`);
  // Swapped whole by a reload; each request reads it once, at its start.
  let served = {
    config: options.config,
    metrics: createMetrics({ source: daemon, config: options.config, clock, reloads }),
  };
  let linkSecret: Buffer | undefined;
  // Read (or made and kept) on first use: a server that never serves a page or link never writes it.
  const secret = async () => {
    linkSecret ??= await loadLinkSecret(daemon.db, served.config, clock);
    return linkSecret;
  };

  const attempts = loginAttempts();

  const route = async (req: IncomingMessage): Promise<Reply> => {
    const { config, metrics } = served;
    const token = config.http.bearerToken;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    const wrongHost = ANY_HOST_ROUTES.has(path) ? undefined : misdirected(req, config, path);
    if (wrongHost) return wrongHost;
    if (!API_ROUTES.has(path)) {
      const form = method === 'POST' ? await readForm(req) : new URLSearchParams();
      if (form === undefined) return htmlReply(413, 'form too large\n');
      const reply = await webRoute(
        { config, source: daemon, clock, secret, loginAttempts: attempts },
        { req, method, path, query: url.searchParams, form },
      );
      if (reply) return reply;
    }
    // Reloading acts, so it is a POST only (never on GET, like every action of ours).
    if (path === RELOAD_PATH) {
      if (method !== 'POST') return text(405, 'only POST', { Allow: 'POST' });
    } else if (method !== 'GET' && method !== 'HEAD') return text(405, 'only GET and HEAD', { Allow: 'GET, HEAD' });
    if (!OPEN_PROBES.has(path) && token !== undefined && !bearerMatches(req.headers.authorization, token)) {
      return text(401, 'a bearer token is required', { 'WWW-Authenticate': 'Bearer realm="podwarden"' });
    }
    switch (path) {
      case '/healthz':
        return text(200, 'ok');
      case RELOAD_PATH: {
        if (reload === undefined) return text(404, 'no configuration file to reload');
        const { problems } = await reload();
        // 500 like Prometheus and Alertmanager: the request was right, the file is not.
        return problems.length === 0
          ? text(200, 'configuration reloaded')
          : text(
              500,
              ['configuration not reloaded; the running one stays:', ...problems.map(formatProblem)].join('\n'),
            );
      }
      case '/metrics':
        return { status: 200, type: metrics.registry.contentType, body: await metrics.registry.metrics() };
      case '/readyz': {
        const { ready, reasons } = await checkReadiness(daemon, config, clock.now());
        return ready ? text(200, 'ready') : text(503, `not ready: ${reasons.join('; ')}`);
      }
      case '/api/status':
        return {
          status: 200,
          type: 'application/json; charset=utf-8',
          body: `${JSON.stringify(await buildStatus(daemon, config, clock.now()), null, 2)}\n`,
        };
      default:
        return text(404, `no route ${path}; see /, /metrics, /healthz, /readyz, /api/status`);
    }
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Every failure of route() becomes a 500 above; writing the reply is all that is left.
    void route(req)
      .catch((error: unknown) => {
        log.error({ err: error, url: req.url }, 'request failed');
        return text(500, `internal error: ${redact((error as Error).message)}`);
      })
      .then((reply) => {
        res.writeHead(reply.status, { 'content-type': reply.type, 'cache-control': 'no-store', ...reply.headers });
        res.end(req.method === 'HEAD' ? undefined : reply.body);
      });
  };

  const server = createServer(handle);
  await once(server.listen(listen.port, listen.host), 'listening').catch((error: unknown) => {
    served.metrics.close();
    throw new Error(`metrics server: listen on ${options.config.http.listen}: ${(error as Error).message}`, {
      cause: error,
    });
  });
  const url = displayUrl(server.address() as AddressInfo);
  log.info({ url, auth: served.config.http.bearerToken !== undefined }, 'metrics server listening');

  return {
    url,
    reconfigure: (config) => {
      served.metrics.close();
      served = { config, metrics: createMetrics({ source: daemon, config, clock, reloads }) };
      // http.linkSecret may have changed: read it again on next use.
      linkSecret = undefined;
    },
    close: async () => {
      served.metrics.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Prometheus keeps its connection alive; without this, close would wait for it to idle out.
        server.closeAllConnections();
      });
    },
  };
}

/** The urlencoded body of a POST, or undefined when it is larger than any form of ours. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function displayUrl(address: AddressInfo): string {
  const wildcard = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  const host = wildcard.includes(':') ? `[${wildcard}]` : wildcard;
  return `http://${host}:${address.port}`;
}
