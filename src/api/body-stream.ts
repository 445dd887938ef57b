import type { Dispatcher } from 'undici';

/** Reads a streamed body: its text as it arrives, and the op (`GET /billing/pods (…)`) for errors. */
export type BodyConsumer<T> = (text: AsyncIterable<string>, op: string) => Promise<T>;

/** Reading the body failed (reset, timeout, over the size cap): a network error, unlike the consumer's own. */
export class BodyReadError extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** Hands the body to `consume` as UTF-8 text; the body is released however `consume` ends. */
export async function consumeBody<T>(
  body: Dispatcher.ResponseData['body'],
  consume: (text: AsyncIterable<string>) => Promise<T>,
) {
  const decoder = new TextDecoder();
  async function* text(): AsyncGenerator<string> {
    try {
      for await (const chunk of body) yield decoder.decode(chunk as Uint8Array, { stream: true });
    } catch (error) {
      throw new BodyReadError(error);
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
