import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query as received, e.g. `/v2/pods?includeClusterPods=true`. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the server does with one request. */
export type Step =
  | { kind: 'reply'; status: number; headers?: Record<string, string>; body?: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Reads the request and destroys the socket: the client sees a connection reset. */
  | { kind: 'destroy' }
  /** Sends the status, headers and part of the body, then stalls forever. */
  | { kind: 'stall-body'; status: number; headers?: Record<string, string>; partial: string }
  | { kind: 'custom'; handle: (request: RecordedRequest, response: ServerResponse) => void | Promise<void> };

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Step => ({
  kind: 'reply',
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const problem = (
  status: number,
  title: string,
  detail: string,
  extra: { errors?: string[]; headers?: Record<string, string> } = {},
): Step => ({
  kind: 'reply',
  status,
  headers: { 'content-type': 'application/problem+json', ...extra.headers },
  body: JSON.stringify({ title, status, detail, ...(extra.errors ? { errors: extra.errors } : {}) }),
});

export const text = (status: number, body: string, headers: Record<string, string> = {}): Step => ({
  kind: 'reply',
  status,
  headers: { 'content-type': 'text/plain', ...headers },
  body,
});

export const hang = (): Step => ({ kind: 'hang' });
export const destroy = (): Step => ({ kind: 'destroy' });
export const stallBody = (partial: string, status = 200): Step => ({
  kind: 'stall-body',
  status,
  headers: { 'content-type': 'application/json' },
  partial,
});
export const custom = (handle: (request: RecordedRequest, response: ServerResponse) => void | Promise<void>): Step => ({
  kind: 'custom',
  handle,
});

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Steps answer requests in arrival order; when none is queued, the fallback answers. */
  enqueue(...steps: Step[]): void;
  setFallback(step: Step): void;
  /** Resolves when the server has received `count` requests in total. */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (port 0) whose answers each test scripts: replies, hangs,
 * resets and stalled bodies, so the client is tested over a real socket.
 */
export async function startScriptedServer(fallback: Step = text(599, 'unscripted request')): Promise<ScriptedServer> {
  const queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: (requests: RecordedRequest[]) => void }> = [];
  let fallbackStep = fallback;

  const server = createServer(async (incoming, response) => {
    const recorded = await record(incoming);
    requests.push(recorded);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve([...requests]);
    }
    await perform(queue.shift() ?? fallbackStep, recorded, incoming, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...steps) => queue.push(...steps),
    setFallback: (step) => {
      fallbackStep = step;
    },
    waitForRequests: (count) =>
      requests.length >= count
        ? Promise.resolve([...requests])
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function record(incoming: IncomingMessage): Promise<RecordedRequest> {
  let body = '';
  for await (const chunk of incoming) body += chunk;
  const url = incoming.url ?? '/';
  const parsed = new URL(url, 'http://127.0.0.1');
  return {
    method: incoming.method ?? 'GET',
    url,
    path: parsed.pathname,
    query: parsed.searchParams,
    headers: incoming.headers,
    body,
  };
}

async function perform(step: Step, recorded: RecordedRequest, incoming: IncomingMessage, response: ServerResponse) {
  switch (step.kind) {
    case 'reply':
      response.writeHead(step.status, step.headers);
      response.end(step.body ?? '');
      return;
    case 'hang':
      return;
    case 'destroy':
      incoming.socket.destroy();
      return;
    case 'stall-body':
      // A declared length longer than what we send keeps the client waiting for the rest.
      response.writeHead(step.status, { ...step.headers, 'content-length': String(step.partial.length + 1000) });
      response.write(step.partial);
      return;
    case 'custom':
      await step.handle(recorded, response);
      return;
  }
}
