import { pipeline, type Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * The content-codings a server may apply although we ask for identity (a proxy or CDN in between
 * often does): undici's `request` hands the bytes over as they came.
 */
const decoders: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A content-coding the answer names that we cannot undo. */
export class UnknownContentEncoding extends Error {
  constructor(readonly coding: string) {
    super(`response body has content-encoding "${coding}", which podwarden cannot decode`);
  }
}

/**
 * The answer's body with its content-codings undone (RFC 9110 §8.4: listed in the order they were
 * applied), decoded bytes capped at `maxBytes` as the wire bytes are. A read error of the wire
 * body or of a decoder reaches the returned stream. Throws UnknownContentEncoding before reading.
 */
export function decodedBody(body: Readable, contentEncoding: string | undefined, maxBytes: number): Readable {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return body;
  const stages = codings.reverse().map((coding) => {
    const make = decoders[coding];
    if (make === undefined) throw new UnknownContentEncoding(coding);
    return make();
  });
  // pipeline destroys every stage with the first error, so the last one reports it to the reader.
  return pipeline([body, ...stages, capped(maxBytes)], () => {}) as unknown as Readable;
}

function capped(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new Error(`decoded response body exceeds ${maxBytes} bytes`));
      else done(null, chunk);
    },
  });
}

/** The whole body as UTF-8 text, a leading BOM dropped (as undici's `body.text()` reads it). */
export async function bodyText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return new TextDecoder().decode(Buffer.concat(chunks));
}
