import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { custom, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { documentExample } from './document.js';
import { drive, makeClient, rejectionOf, type TestClient } from './support.js';

let server: ScriptedServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = makeClient(server.url);
});

afterEach(async () => {
  await client.close();
  await server.close();
});

const run = <T>(work: Promise<T>) => drive(client.clock, work);

const encoders: Record<string, (bytes: Buffer) => Buffer> = {
  gzip: (bytes) => gzipSync(bytes),
  deflate: (bytes) => deflateSync(bytes),
  br: (bytes) => brotliCompressSync(bytes),
};

/** A 200 whose JSON body is sent with the given content-coding, as a server that ignores Accept-Encoding may. */
function encoded(body: unknown, coding: string) {
  const encode = encoders[coding] ?? ((bytes: Buffer) => bytes);
  return custom((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding });
    response.end(encode(Buffer.from(JSON.stringify(body))));
  });
}

describe('content-coding of answers', () => {
  it('asks for the identity coding', async () => {
    server.enqueue(encoded(documentExample('get', '/v2/pods/{id}'), 'identity'));
    await run(client.rest.getPod('pod-1'));
    expect(server.requests[0]?.headers['accept-encoding']).toBe('identity');
  });

  for (const coding of Object.keys(encoders)) {
    it(`decodes a ${coding} answer a server sends anyway`, async () => {
      const pod = documentExample('get', '/v2/pods/{id}') as { id: string };
      server.enqueue(encoded(pod, coding));
      expect((await run(client.rest.getPod(pod.id))).id).toBe(pod.id);
    });
  }

  it('decodes a gzip answer of a billing route', async () => {
    const answer = documentExample('get', '/v2/billing') as { records: unknown[] };
    server.enqueue(encoded(answer, 'gzip'));
    const { records } = await run(client.rest.billing({ bucketSize: 'hour' }));
    expect(records.items).toHaveLength(answer.records.length);
    expect(records.rejected).toEqual([]);
  });

  it('names a content-coding it cannot decode instead of calling the body invalid JSON', async () => {
    server.enqueue(encoded(documentExample('get', '/v2/pods/{id}'), 'zstd'));
    const error = await rejectionOf(run(client.rest.getPod('pod-1')));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'contract' });
    expect(error.message).toContain('content-encoding "zstd"');
  });
});
