import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The receiver's check, as docs/webhooks.md prints it: the payload, or it throws why not. */
export type VerifyDelivery = (
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  seen: Set<string>,
  now?: number,
) => Record<string, unknown>;

/** The Node verification example of docs/webhooks.md, extracted from the doc and loaded as it is written. */
export async function loadVerificationExample(): Promise<{ source: string; verify: VerifyDelivery }> {
  const doc = readFileSync(resolve('docs', 'webhooks.md'), 'utf8');
  const match = /<!-- verification-example -->\s*```js\n([\s\S]*?)```/.exec(doc);
  if (!match?.[1]) throw new Error('docs/webhooks.md: no ```js block after <!-- verification-example -->');
  const source = match[1];
  const file = join(mkdtempSync(join(tmpdir(), 'podwarden-webhook-doc-')), 'verify.mjs');
  writeFileSync(file, source);
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const verify = Object.values(module).find((value) => typeof value === 'function');
  if (verify === undefined) throw new Error('the verification example exports no function');
  return { source, verify: verify as VerifyDelivery };
}

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The example's verdict at arrival: the payload, or why it refused the delivery. */
  verdict: { ok: true; payload: Record<string, unknown> } | { ok: false; error: string };
  /** The status the receiver answered. */
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Delivery ids the check has accepted (its dedupe store). */
  seen: Set<string>;
  close(): Promise<void>;
}

/**
 * A webhook receiver over real HTTP that checks every delivery with the documented example
 * (`secret`, its clock `now()`), records it and answers what `answer` says for the n-th request
 * (200 by default), with optional headers (`Retry-After`).
 */
export async function startWebhookReceiver(options: {
  secret: string;
  verify: VerifyDelivery;
  now: () => number;
  answer?: (index: number) => { status: number; headers?: Record<string, string> };
}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const { status, headers } = options.answer?.(received.length) ?? { status: 200 };
      let verdict: ReceivedDelivery['verdict'];
      try {
        // A receiver that answers an error has not taken the delivery: it must not remember its id.
        const store = status >= 200 && status < 300 ? seen : new Set(seen);
        verdict = { ok: true, payload: options.verify(options.secret, request.headers, body, store, options.now()) };
      } catch (error) {
        verdict = { ok: false, error: (error as Error).message };
      }
      received.push({ headers: request.headers, body, verdict, status });
      response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/podwarden`,
    received,
    seen,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
