import type { ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consumeBody } from '../../src/api/body-stream.js';
import { HttpTransport } from '../../src/api/http.js';
import { RateLimitBudget } from '../../src/api/rate-limit.js';
import { silentLogger } from '../../src/log.js';
import { custom, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { RecordingClock, START } from './support.js';

let server: ScriptedServer;
let transport: HttpTransport | undefined;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await server.close();
});

function makeTransport(concurrency: number): HttpTransport {
  const clock = new RecordingClock(START);
  transport = new HttpTransport(
    {
      restBaseUrl: `${server.url}/v2`,
      graphqlBaseUrl: `${server.url}/graphql`,
      apiKey: 'rpa_test_key_0000',
      graphqlAuth: 'header',
      clock,
      log: silentLogger(),
      timeouts: { connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 },
      retries: { max: 0, baseDelayMs: 1_000, maxDelayMs: 1_000 },
      concurrency,
    },
    new RateLimitBudget(clock),
  );
  return transport;
}

const get = (route: string) => ({ target: 'rest' as const, method: 'GET' as const, route, idempotent: true });

/** A promise and the function that settles it. */
function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open: (value: T) => void = () => {};
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

function answerPods(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ pods: [] }));
}

describe('concurrency slots of streamed answers', () => {
  it('frees the slot once the last byte has arrived, while the consumer still works through it', async () => {
    const big = `[${Array.from({ length: 5_000 }, (_, i) => `{"n":${i}}`).join(',')}]`;
    server.setFallback(
      custom((request, response) => {
        if (request.path === '/v2/pods') return answerPods(response);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(big);
      }),
    );
    const http = makeTransport(1);
    const readAll = gate();
    const storeDone = gate();
    const streamed = http.stream(get('/big'), async (text) => {
      let length = 0;
      for await (const chunk of text) length += chunk.length;
      readAll.open();
      // Storing what was read takes a while; the answer is no longer on the wire.
      await storeDone.promise;
      return length;
    });
    await readAll.promise;
    // With the only slot still held by the streamed answer, this would wait for the store.
    const pods = await http.send(get('/pods'));
    expect(pods.body).toEqual({ pods: [] });
    storeDone.open();
    await expect(streamed).resolves.toBe(big.length);
    expect(server.requests.map((r) => r.path)).toEqual(['/v2/big', '/v2/pods']);
  });

  it('holds the slot while the answer is still arriving', async () => {
    const order: string[] = [];
    const rest = gate();
    server.setFallback(
      custom(async (request, response) => {
        if (request.path === '/v2/pods') {
          order.push('pods asked');
          return answerPods(response);
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('[1,2,');
        await rest.promise;
        order.push('slow answer ended');
        response.end('3]');
      }),
    );
    const http = makeTransport(1);
    const firstChunk = gate();
    const streamed = http.stream(get('/slow'), async (text) => {
      let all = '';
      for await (const chunk of text) {
        all += chunk;
        firstChunk.open();
      }
      return all;
    });
    await firstChunk.promise;
    const pods = http.send(get('/pods'));
    // Time for a client that let the second request through to have sent it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    rest.open();
    await expect(streamed).resolves.toBe('[1,2,3]');
    await pods;
    expect(order).toEqual(['slow answer ended', 'pods asked']);
  });
});

describe('read-ahead of a streamed body', () => {
  it('stops reading past its limit while the consumer is busy, so the answer stays on the wire', async () => {
    const total = 32 * 1024 * 1024;
    const piece = Buffer.alloc(64 * 1024, 'x');
    let written = 0;
    const blocked = gate();
    server.setFallback(
      custom(async (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        while (written < total) {
          written += piece.length;
          if (!response.write(piece)) {
            blocked.open();
            await new Promise((resolve) => response.once('drain', resolve));
          }
        }
        response.end();
      }),
    );
    const answer = await request(`${server.url}/v2/big`);
    let arrived = false;
    const busy = gate();
    let read = 0;
    const consumed = consumeBody(
      answer.body,
      async (text) => {
        for await (const chunk of text) {
          read += chunk.length;
          if (read === chunk.length) await busy.promise;
        }
        return read;
      },
      () => {
        arrived = true;
      },
      256 * 1024,
    );
    await blocked.promise;
    // Time for a reader without a limit to take in the rest of the answer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(arrived).toBe(false);
    expect(written).toBeLessThan(total);
    busy.open();
    await expect(consumed).resolves.toEqual({ value: total });
    expect(arrived).toBe(true);
  });
});
