import type { Outcome } from '../alerts/deliver.js';
import { redact } from '../redact.js';
import { causeOf } from './alertmanager-client.js';

/**
 * One POST of a message to a Slack incoming webhook, and what Slack's answer means. Slack answers
 * `200 ok`; `429` with `Retry-After` (seconds) when the webhook is posted to too often; a 4xx
 * with a reason in the body (`no_service`, `invalid_token`, `invalid_payload`,
 * `channel_is_archived`…) that no retry will change; 5xx while Slack is down.
 */

const BODY_SNIPPET = 200;
/** When a 429 names no (valid) Retry-After: Slack asks for about a second per message. */
const DEFAULT_RETRY_AFTER_S = 30;

/**
 * The outcome of posting `body` to `url`: the URL is a secret, so nothing here names it (errors
 * say "the webhook of destination X" through the caller's logs). The timeout bounds the whole
 * exchange in real time: it guards against a peer that hangs, not against the daemon's clock.
 */
export async function postToSlack(
  url: string,
  body: unknown,
  options: { timeoutMs: number; now: () => number; signal?: AbortSignal },
): Promise<Outcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  let answer: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
    });
    answer = (await response.text()).trim();
  } catch (error) {
    const reason = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : causeOf(error);
    return { kind: 'retry', error: redact(`Slack unreachable: ${reason}`), unreachable: true };
  }
  const snippet = redact(answer.length > BODY_SNIPPET ? `${answer.slice(0, BODY_SNIPPET)}…` : answer);
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: 'delivered', response: snippet || `HTTP ${status}` };
  const said = `HTTP ${status}${snippet ? ` ${snippet}` : ''}`;
  if (status === 429) {
    const seconds = retryAfterSeconds(response.headers.get('retry-after'));
    return {
      kind: 'retry',
      error: `Slack rate limit (${said}): again in ${seconds}s`,
      at: options.now() + seconds * 1000,
      unreachable: true,
    };
  }
  if (status >= 500 || status === 408) return { kind: 'retry', error: `Slack failed: ${said}`, unreachable: true };
  return { kind: 'failed', error: `Slack refused the message: ${said}` };
}

/** `Retry-After` as Slack sends it: whole seconds (an HTTP date is not what Slack sends). */
function retryAfterSeconds(header: string | null): number {
  const seconds = header === null ? Number.NaN : Number(header.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : DEFAULT_RETRY_AFTER_S;
}
