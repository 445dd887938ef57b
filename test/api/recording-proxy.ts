import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PrismViolation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** From Prism's `sl-violations` header or its 500 "VIOLATIONS" body. */
  violations: PrismViolation[];
  body: string;
}

/**
 * A pass-through HTTP proxy in front of Prism that records each exchange with Prism's
 * validation verdict, which the API client (rightly) never exposes; it can also add a
 * `Prefer` header to the next request, to ask Prism for a particular status or example.
 */
export async function startRecordingProxy(upstream: string) {
  const exchanges: Exchange[] = [];
  const preferences: string[] = [];
  const target = new URL(upstream);

  const server = createServer((incoming, outgoing) => {
    const prefer = preferences.shift();
    const headers = { ...incoming.headers, host: target.host, ...(prefer ? { prefer } : {}) };
    const upstreamRequest = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => {
          body += chunk;
        });
        answer.on('end', () => {
          exchanges.push({
            method: incoming.method ?? '',
            url: incoming.url ?? '',
            status: answer.statusCode ?? 0,
            violations: violationsOf(answer.headers['sl-violations'], body),
            body,
          });
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(body);
        });
      },
    );
    upstreamRequest.on('error', (error) => {
      outgoing.writeHead(502, { 'content-type': 'text/plain' });
      outgoing.end(`recording proxy: ${error.message}`);
    });
    incoming.pipe(upstreamRequest);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    /** The next request carries `Prefer: <value>` (e.g. `code=204`). */
    preferNext: (value: string) => preferences.push(value),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function violationsOf(header: string | string[] | undefined, body: string): PrismViolation[] {
  const fromHeader = typeof header === 'string' ? (JSON.parse(header) as PrismViolation[]) : [];
  let fromBody: PrismViolation[] = [];
  try {
    const parsed = JSON.parse(body) as { type?: string; validation?: PrismViolation[] };
    if (parsed.type?.endsWith('#VIOLATIONS') && Array.isArray(parsed.validation)) fromBody = parsed.validation;
  } catch {
    // Not JSON: no violations in the body.
  }
  return [...fromHeader, ...fromBody];
}
