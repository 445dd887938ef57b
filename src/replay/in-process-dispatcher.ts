import type { IncomingHttpHeaders } from 'node:http';
import { Dispatcher, errors } from 'undici';
import type { Simulator } from '../simulator/server.js';

/**
 * The replay's road from the API client to its simulators without sockets: the simulator and the
 * daemon share one process and one virtual clock, and over loopback HTTP a replayed day spent a
 * sixth of its time in the HTTP stacks of both and waiting on the socket. The client keeps all
 * of its own code (auth, rate-limit budget, retries, decoding, error classification): only the
 * transport is replaced, and a dropped connection fails as undici's own does.
 */
export class InProcessDispatcher extends Dispatcher {
  private readonly byOrigin: ReadonlyMap<string, Simulator>;
  /** The origin as undici hands it (a string, the same one on every request) to its simulator. */
  private readonly byOriginText = new Map<string, Simulator>();

  constructor(simulators: readonly Simulator[]) {
    super();
    this.byOrigin = new Map(simulators.map((sim) => [new URL(sim.url).origin, sim]));
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    void this.exchange(options, handler as LegacyHandler);
    return true;
  }

  private async exchange(options: Dispatcher.DispatchOptions, handler: LegacyHandler): Promise<void> {
    let aborted: Error | undefined;
    handler.onConnect?.((reason?: Error) => {
      aborted = reason ?? new errors.RequestAbortedError();
    });
    try {
      const sim = this.simulatorAt(String(options.origin));
      const reply = await sim.exchange({
        method: options.method,
        url: options.path,
        headers: lowerCased(options.headers),
        body: typeof options.body === 'string' ? options.body : '',
      });
      if (aborted) throw aborted;
      // What undici raises when the server closes the connection without an answer.
      if (reply === 'reset') throw new errors.SocketError('other side closed');
      // Names and values as strings, not Buffers: undici's header parsing takes both and would
      // only turn Buffers back into the same strings.
      const rawHeaders: string[] = [];
      for (const [name, value] of Object.entries(reply.headers)) rawHeaders.push(name, value);
      handler.onHeaders?.(reply.status, rawHeaders, () => {}, '');
      if (reply.bytes !== undefined && reply.bytes.length > 0) handler.onData?.(reply.bytes);
      handler.onComplete?.([]);
    } catch (error) {
      handler.onError?.(error as Error);
    }
  }

  private simulatorAt(originText: string): Simulator {
    let sim = this.byOriginText.get(originText);
    if (sim === undefined) {
      const origin = new URL(originText).origin;
      sim = this.byOrigin.get(origin);
      if (!sim) throw new errors.SocketError(`no simulator at ${origin}`);
      this.byOriginText.set(originText, sim);
    }
    return sim;
  }

  /** Simulators are closed by the replay; the clients sharing this dispatcher have nothing to close. */
  override close(): Promise<void>;
  override close(callback: () => void): void;
  override close(callback?: () => void): Promise<void> | undefined {
    if (callback) {
      callback();
      return undefined;
    }
    return Promise.resolve();
  }
}

/** The handler undici's `request()` hands to a dispatcher (its legacy callbacks). */
interface LegacyHandler {
  onConnect?(abort: (reason?: Error) => void): void;
  onHeaders?(
    status: number,
    rawHeaders: Array<Buffer | string>,
    resume: () => void,
    statusText: string,
  ): boolean | undefined;
  onData?(chunk: Buffer): boolean | undefined;
  onComplete?(trailers: Buffer[]): void;
  onError?(error: Error): void;
}

/** Request headers as node:http gives them to a server: names in lower case. */
function lowerCased(headers: Dispatcher.DispatchOptions['headers']): IncomingHttpHeaders {
  const result: IncomingHttpHeaders = {};
  if (!headers) return result;
  const entries = Array.isArray(headers)
    ? pairs(headers as string[])
    : Symbol.iterator in Object(headers)
      ? [...(headers as Iterable<[string, string]>)]
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  for (const [name, value] of entries) {
    if (value !== undefined) result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return result;
}

function pairs(flat: string[]): Array<[string, string]> {
  const result: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) result.push([flat[i] as string, flat[i + 1] as string]);
  return result;
}
