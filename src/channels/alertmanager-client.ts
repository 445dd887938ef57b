import type { AlertmanagerConfig } from '../config/sections/alertmanager.js';
import { redact } from '../redact.js';
import type { PostableAlert } from './alertmanager-payload.js';

/** Alertmanager did not take a batch: no answer (`status` undefined) or an answer other than 200. */
export class AlertmanagerError extends Error {
  constructor(
    readonly target: string,
    readonly status: number | undefined,
    detail: string,
  ) {
    super(`POST ${target}/api/v2/alerts: ${detail}`);
    this.name = 'AlertmanagerError';
  }

  /**
   * 4xx but 408 and 429: this batch or our credentials are wrong, and waiting will not fix it
   * (a person must). It is still retried (nothing is dropped), but logged as an error.
   */
  get refused(): boolean {
    return this.status !== undefined && this.status >= 400 && this.status < 500 && ![408, 429].includes(this.status);
  }
}

const BODY_SNIPPET = 500;

function authorization(config: AlertmanagerConfig): string | undefined {
  if (config.bearerToken !== undefined) return `Bearer ${config.bearerToken}`;
  if (config.basicAuth === undefined) return undefined;
  const { username, password } = config.basicAuth;
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/**
 * Posts a batch to one Alertmanager (`POST /api/v2/alerts`); resolves when it answers 200. The
 * timeout bounds the whole exchange, connecting to the end of the answer, in real time: it
 * guards against a peer that hangs, not against the daemon's clock.
 */
export async function postAlerts(
  target: string,
  alerts: readonly PostableAlert[],
  config: AlertmanagerConfig,
  signal?: AbortSignal,
): Promise<void> {
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  const auth = authorization(config);
  if (auth !== undefined) headers.authorization = auth;
  let response: Response;
  let body: string;
  try {
    response = await fetch(`${target}/api/v2/alerts`, {
      method: 'POST',
      headers,
      body: JSON.stringify(alerts),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    body = await response.text();
  } catch (error) {
    const reason = timeout.aborted ? `no answer within ${config.timeoutMs} ms` : causeOf(error);
    throw new AlertmanagerError(target, undefined, redact(reason));
  }
  if (response.status !== 200) {
    const snippet = body.length > BODY_SNIPPET ? `${body.slice(0, BODY_SNIPPET)}…` : body;
    throw new AlertmanagerError(target, response.status, redact(`HTTP ${response.status}: ${snippet.trim()}`));
  }
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, a TLS error) is in its cause. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}
