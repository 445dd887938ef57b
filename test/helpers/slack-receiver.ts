import { EventEmitter, once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the receiver answers the next posts, in order; once used up, it answers `200 ok`. */
export type SlackAnswer =
  | { status: 200 }
  | { status: 429; retryAfter: number }
  | { status: 404; body: 'no_service' }
  | { status: number; body: string };

export interface SlackPost {
  /** The webhook's path: which destination it was posted to. */
  path: string;
  contentType: string | undefined;
  body: Record<string, unknown>;
  /** What the receiver answered. */
  status: number;
}

export interface SlackReceiver {
  /** The base URL; each destination is a path under it (`${url}/services/T0/B0/ops`). */
  url: string;
  /** Every post, in order, with the answer it got. */
  posts: SlackPost[];
  /** Answers for the next posts (a 429, a 404 `no_service`…), used in order. */
  answer(...answers: SlackAnswer[]): void;
  /** Resolves with the next post that gets `200 ok`. */
  nextDelivered(): Promise<SlackPost>;
  close(): Promise<void>;
}

/**
 * A loopback peer answering as a Slack incoming webhook does: `200 ok` to a JSON message with
 * `text` or `blocks`, `400 invalid_payload` to anything else, or the scripted answers (429 with
 * Retry-After, 404 no_service…). It records what it gets.
 */
export async function startSlackReceiver(): Promise<SlackReceiver> {
  const posts: SlackPost[] = [];
  const scripted: SlackAnswer[] = [];
  const events = new EventEmitter();
  const server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      raw += chunk;
    });
    request.on('end', () => {
      let body: Record<string, unknown> = {};
      let valid = request.method === 'POST';
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
        valid &&= typeof body.text === 'string' || Array.isArray(body.blocks);
      } catch {
        valid = false;
      }
      const next = valid ? (scripted.shift() ?? { status: 200 }) : { status: 400, body: 'invalid_payload' };
      const post: SlackPost = {
        path: request.url ?? '',
        contentType: request.headers['content-type'],
        body,
        status: next.status,
      };
      posts.push(post);
      if (next.status === 429 && 'retryAfter' in next) {
        response.writeHead(429, { 'retry-after': String(next.retryAfter) }).end('rate_limited');
      } else if (next.status === 200) {
        response.writeHead(200, { 'content-type': 'text/html' }).end('ok');
        events.emit('delivered', post);
      } else response.writeHead(next.status, { 'content-type': 'text/html' }).end('body' in next ? next.body : '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    answer: (...answers) => {
      scripted.push(...answers);
    },
    nextDelivered: async () => (await once(events, 'delivered'))[0] as SlackPost,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
