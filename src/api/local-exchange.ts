/**
 * A request answered in this process (a replay's simulators) instead of over HTTP: the API client
 * keeps all of its own code (auth, rate-limit budget, retries, decoding, errors); only the wire goes.
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
