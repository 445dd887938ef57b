import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Config } from '../config/schema.js';
import { parseListen } from '../config/sections/http.js';
import { normalHostName } from '../config/sections/http-guards.js';
import { messagePage } from './message-page.js';
import { htmlReply, type Reply } from './reply.js';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);

/** `Example.com:9464` → `example.com`; `[::1]:9464` → `::1`. */
export function hostOf(hostHeader: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(hostHeader);
  if (bracketed) return normalHostName(bracketed[1] as string);
  return normalHostName(hostHeader.replace(/:\d*$/, ''));
}

/**
 * Whether `name` is one podwarden is reached by: a loopback name, an IP address, the listen
 * address, publicUrl's host, or one of `http.allowedHosts`. An IP address cannot be the product
 * of DNS rebinding (the browser connected to the very address it names), and a pod or a machine
 * is often reached by its address; a name can be, so a name must be listed.
 */
export function isAllowedHost(name: string, config: Config): boolean {
  if (LOOPBACK_NAMES.has(name) || isIP(name) !== 0) return true;
  if (name === normalHostName(parseListen(config.http.listen)?.host ?? '')) return true;
  if (config.http.publicUrl !== undefined && name === normalHostName(new URL(config.http.publicUrl).hostname))
    return true;
  return config.http.allowedHosts.includes(name);
}

/**
 * A 421 for a request naming a host podwarden is not reached by, undefined otherwise. After a
 * DNS rebinding, a page of another site is same-origin with this server in the victim's browser
 * and reaches it from loopback; its requests still name the other site in Host, which is what
 * this refuses. A request without Host (HTTP/1.0) comes from no browser and passes.
 */
export function misdirected(req: IncomingMessage, config: Config, path: string): Reply | undefined {
  const header = req.headers.host;
  if (header === undefined || isAllowedHost(hostOf(header), config)) return undefined;
  const reason = `This server does not answer for the host name "${hostOf(header)}". If you reach podwarden by that name, add it to http.allowedHosts (or make it http.publicUrl's host).`;
  if (path === '/api/status') return { status: 421, type: 'text/plain; charset=utf-8', body: `${reason}\n` };
  return htmlReply(421, messagePage('Unknown host name', [reason], { tone: 'bad' }));
}
