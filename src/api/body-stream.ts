import type { Readable } from 'node:stream';

/** Reads a streamed body: its text as it arrives, and the op (`GET /billing/pods (…)`) for errors. */
export type BodyConsumer<T> = (text: AsyncIterable<string>, op: string) => Promise<T>;

/** Reading the body failed (reset, timeout, over the size cap): a network error, unlike the consumer's own. */
export class BodyReadError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/**
 * How far the body is read off the wire ahead of its consumer. A consumer that stores what it
 * reads is slower than the network; reading ahead lets the answer finish arriving (and its
 * concurrency slot go to the next request) while the consumer works through it. Past this many
 * bytes waiting, reading pauses and the answer stays on the wire, so memory stays bounded.
 */
export const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * Hands the body to `consume` as UTF-8 text; the body is released however `consume` ends.
 * `arrived` is called once the last byte has been received, which may be well before `consume`
 * is done with it.
 */
export async function consumeBody<T>(
  body: Readable,
  consume: (text: AsyncIterable<string>) => Promise<T>,
  arrived: () => void = () => {},
  readAheadBytes = READ_AHEAD_BYTES,
) {
  const queue = readAhead(body, readAheadBytes, arrived);
  const decoder = new TextDecoder();
  async function* text(): AsyncGenerator<string> {
    for (let chunk = await queue.next(); chunk !== undefined; chunk = await queue.next()) {
      yield decoder.decode(chunk, { stream: true });
    }
    const tail = decoder.decode();
    if (tail) yield tail;
  }
  try {
    return { value: await consume(text()) };
  } finally {
    // A body left half read would hold its connection: a consumer that gave up releases it here.
    if (!body.readableEnded && !body.destroyed) body.destroy();
  }
}

/**
 * The body's chunks as they arrive, queued up to `limit` bytes ahead of the reader. A read error
 * reaches the reader after the chunks that arrived before it, as if it read them one by one.
 */
function readAhead(body: Readable, limit: number, arrived: () => void): { next(): Promise<Uint8Array | undefined> } {
  const chunks: Uint8Array[] = [];
  let head = 0;
  let queued = 0;
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  body.on('data', (chunk: Uint8Array) => {
    chunks.push(chunk);
    queued += chunk.byteLength;
    if (queued >= limit) body.pause();
    notify();
  });
  body.once('end', () => {
    ended = true;
    arrived();
    notify();
  });
  body.once('error', (error) => {
    failure = { error };
    notify();
  });
  // Destroyed without an error (not by us: we only do so once the reader is done) is still a cut body.
  body.once('close', () => {
    if (!ended && !failure) failure = { error: new Error('response body closed before its end') };
    notify();
  });
  return {
    async next() {
      for (;;) {
        if (head < chunks.length) {
          // A queued chunk would resolve at once, and the reader would run through the whole body
          // in one go: other answers waiting on the event loop (and their slots) are let in first.
          await new Promise<void>((resolve) => setImmediate(resolve));
          const chunk = chunks[head] as Uint8Array;
          chunks[head++] = EMPTY;
          // Drop what has been read now and then, so the array does not grow with the whole body.
          if (head > 1024) {
            chunks.splice(0, head);
            head = 0;
          }
          queued -= chunk.byteLength;
          if (queued < limit && body.isPaused() && !ended) body.resume();
          return chunk;
        }
        if (failure) throw new BodyReadError(failure.error);
        if (ended) return undefined;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

const EMPTY = new Uint8Array(0);

/**
 * `consumeBody` for a body that arrived whole (answered in process): `consume` reads the same
 * text in one piece, after the same turn of the event loop that lets other answers in first.
 */
export async function consumeWhole<T>(
  text: string,
  consume: (text: AsyncIterable<string>) => Promise<T>,
): Promise<{ value: T }> {
  async function* whole(): AsyncGenerator<string> {
    if (text === '') return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    yield text;
  }
  return { value: await consume(whole()) };
}
