import { SECURITY_HEADERS } from './layout.js';

/** One HTTP reply of the server: what `src/web/server.ts` writes. */
export interface Reply {
  status: number;
  type: string;
  body: string;
  headers?: Record<string, string>;
}

/** An HTML page with the security headers every page carries. */
export function htmlReply(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, type: 'text/html; charset=utf-8', body, headers: { ...SECURITY_HEADERS, ...headers } };
}

/** After a form acted: back to a page with GET, so a reload does not post again. */
export function seeOther(location: string, headers: Record<string, string> = {}): Reply {
  return htmlReply(303, '', { location, ...headers });
}
