import type { IncomingMessage } from 'node:http';
import { BlockList, isIP, isIPv4 } from 'node:net';
import type { Config } from '../config/schema.js';
import { parseAddressOrRange } from '../config/sections/http-guards.js';

/** `::ffff:127.0.0.1` → `127.0.0.1`: one spelling per IPv4 client, whichever socket it came on. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIPv4(address.slice(7)) ? address.slice(7) : address;
}

function proxies(config: Config): BlockList {
  const list = new BlockList();
  for (const entry of config.http.trustedProxies) {
    const parsed = parseAddressOrRange(entry);
    if (!parsed) continue;
    const type = isIPv4(parsed.address) ? 'ipv4' : 'ipv6';
    if (parsed.prefix === undefined) list.addAddress(parsed.address, type);
    else list.addSubnet(parsed.address, parsed.prefix, type);
  }
  return list;
}

function trusted(list: BlockList, address: string): boolean {
  return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}

/**
 * Who sent the request: the socket's address, unless it is one of `http.trustedProxies`; then
 * the last address of X-Forwarded-For that is not a trusted proxy, walking from the right,
 * because each proxy appends the address it was reached from and everything to the left of
 * our own proxies' entries is the client's to write. Without trusted proxies, X-Forwarded-For
 * is ignored: anyone can send it.
 */
export function clientAddress(req: IncomingMessage, config: Config): string {
  const socket = plain(req.socket.remoteAddress ?? 'unknown');
  if (config.http.trustedProxies.length === 0) return socket;
  const list = proxies(config);
  if (!trusted(list, socket)) return socket;
  const hops = String(req.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map((hop) => plain(hop.trim()))
    .filter((hop) => hop !== '');
  let client = socket;
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index] as string;
    // A hop that is not an address was written by someone we do not trust: stop at what we know.
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusted(list, hop)) break;
  }
  return client;
}
