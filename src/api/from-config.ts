import type { Clock } from '../clock.js';
import type { AccountConfig, Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import { type ApiClient, createApiClient } from './client.js';
import type { RequestEvent } from './http.js';
import type { LocalExchange } from './local-exchange.js';

export interface ApiWiring {
  clock: Clock;
  log: Logger;
  inflight?: InflightCounter;
  onRequest?: (event: RequestEvent & { account: string }) => void;
  /** Instead of the network: a replay's in-process simulator. */
  local?: LocalExchange;
}

/** The API client of one configured account, with the `api` section's timeouts and retries. */
export function apiClientFor(config: Config, account: AccountConfig, wiring: ApiWiring): ApiClient {
  const { api } = config;
  return createApiClient({
    restBaseUrl: account.restBaseUrl,
    graphqlBaseUrl: account.graphqlBaseUrl,
    apiKey: account.apiKey,
    graphqlAuth: api.graphqlAuth,
    clock: wiring.clock,
    log: wiring.log.child({ account: account.name }),
    timeouts: { connectMs: api.timeouts.connectMs, headersMs: api.timeouts.headersMs, bodyMs: api.timeouts.bodyMs },
    retries: { max: api.retries.max, baseDelayMs: api.retries.baseDelayMs, maxDelayMs: api.retries.maxDelayMs },
    concurrency: api.concurrency,
    inflight: wiring.inflight,
    local: wiring.local,
    onRequest: wiring.onRequest && ((event) => wiring.onRequest?.({ ...event, account: account.name })),
  });
}
