import { parseRetryAfter } from '../api/rate-limit.js';
import { redact } from '../redact.js';
import { causeOf } from './alertmanager-client.js';

/** What one POST to a destination came to: an answer (any status), or none (`status` undefined). */
export interface WebhookAnswer {
  status: number | undefined;
  /** The answer's start, or why there was none; secrets redacted. */
  detail: string;
  /** How long the receiver asked us to wait (408/429/503 `Retry-After`), in ms. */
  retryAfterMs?: number;
}

const BODY_SNIPPET = 500;
/** A Retry-After beyond a day is no plan: the row's give-up decides before then anyway. */
const RETRY_AFTER_CAP_MS = 24 * 3_600_000;

/**
 * POSTs one signed body. The timeout bounds the whole exchange, connecting to the end of the
 * answer, in real time: it guards against a peer that hangs, not against the daemon's clock.
 */
export async function postWebhook(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; now: number; signal?: AbortSignal },
): Promise<WebhookAnswer> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'podwarden-webhook/1', ...headers },
      body,
      // A redirect would carry the signed body somewhere the operator did not name.
      redirect: 'manual',
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
    const text = await response.text();
    const snippet = text.length > BODY_SNIPPET ? `${text.slice(0, BODY_SNIPPET)}…` : text;
    return {
      status: response.status,
      detail: redact(`HTTP ${response.status}: ${snippet.trim()}`),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after') ?? undefined, options.now, RETRY_AFTER_CAP_MS),
    };
  } catch (error) {
    const reason = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : causeOf(error);
    return { status: undefined, detail: redact(reason) };
  }
}
