import { errors } from 'undici';
import type { LocalExchange, LocalReply } from '../api/local-exchange.js';
import type { Simulator } from '../simulator/server.js';

/**
 * The replay's road from the API client to its simulators (one process, one virtual clock) without
 * sockets. The client keeps all of its own code (auth, rate-limit budget, retries, decoding, error
 * classification): only the transport is replaced, and a dropped connection fails as undici's does.
 */
export function inProcessExchange(simulators: readonly Simulator[]): LocalExchange {
  // Longest first, so `http://h:80` never takes the requests of `http://h:8080`.
  const byPrefix = simulators
    .map((sim) => ({ prefix: sim.url, sim }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  return async (req) => {
    const { sim, path } = route(byPrefix, req.url);
    const reply = await sim.exchange({ method: req.method, url: path, headers: req.headers, body: req.body ?? '' });
    // What undici raises when the server closes the connection without an answer.
    if (reply === 'reset') throw new errors.SocketError('other side closed');
    const headers: LocalReply['headers'] = {};
    for (const name in reply.headers) headers[name.toLowerCase()] = reply.headers[name] as string;
    return { status: reply.status, headers, bytes: reply.bytes };
  };
}

/**
 * The simulator a URL goes to, and the request target a server would read from it. A target
 * that URL parsing would rewrite (a `.` or `..` path segment, an apostrophe in the query, which
 * encodeURIComponent leaves as they are) is parsed as undici would before sending it.
 */
function route(
  byPrefix: ReadonlyArray<{ prefix: string; sim: Simulator }>,
  url: string,
): { sim: Simulator; path: string } {
  for (const { prefix, sim } of byPrefix) {
    if (!url.startsWith(prefix)) continue;
    const next = url[prefix.length];
    // Only a whole origin: followed by the path, the query, or nothing.
    if (next !== undefined && next !== '/' && next !== '?') continue;
    const target = url.slice(prefix.length);
    if (!url.includes("'") && !DOT_SEGMENT.test(target)) return { sim, path: target === '' ? '/' : target };
    const parsed = new URL(url);
    return { sim, path: `${parsed.pathname}${parsed.search}` };
  }
  throw new errors.SocketError(`no simulator at ${safeOrigin(url)}`);
}

const DOT_SEGMENT = /\/\.\.?(?:[/?]|$)/;

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an unparsable URL';
  }
}
