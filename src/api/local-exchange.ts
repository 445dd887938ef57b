/**
 * A request answered in this process instead of over HTTP: a replay's simulators share the
 * daemon's process and virtual clock. The API client keeps all of its own code (auth, the
 * rate-limit budget, retries, decoding, error classification); only the wire is left out, and
 * with it undici's request machinery (a Readable, an abort listener and a URL parse per request).
 */
export interface LocalRequest {
  method: string;
  /** The whole URL, as the client built it on its base URL. */
  url: string;
  /** Names in lower case, as node:http hands them to a server. */
  headers: Record<string, string>;
  body: string | undefined;
}

export interface LocalReply {
  status: number;
  /** Names in lower case, as undici gives a response's headers. */
  headers: Record<string, string>;
  /** The body as it would go on the wire (UTF-8); undefined or empty when there is none. */
  bytes: Uint8Array | undefined;
}

/**
 * Answers one request, or rejects as the network would (a dropped connection is undici's
 * SocketError, so it reads and is retried as one).
 */
export type LocalExchange = (req: LocalRequest) => Promise<LocalReply>;
