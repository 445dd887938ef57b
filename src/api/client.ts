import { GraphqlClient } from './graphql.js';
import { type ApiClientOptions, HttpTransport } from './http.js';
import { RateLimitBudget } from './rate-limit.js';
import { RestClient } from './rest.js';

export const DEFAULT_REST_BASE_URL = 'https://api.runpod.io/v2';
export const DEFAULT_GRAPHQL_URL = 'https://api.runpod.io/graphql';

export interface ApiClient {
  rest: RestClient;
  graphql: GraphqlClient;
  /** The account's rate-limit windows as last reported; `budget.remaining()` for metrics. */
  budget: RateLimitBudget;
  /**
   * Counts `work` as in flight, like a request, until it settles: a collector storing what it
   * read in slices yields to the event loop between them, and a virtual clock must not move on
   * while it does (a replay would otherwise see a run's rows land later than it finished).
   */
  hold<T>(work: Promise<T>): Promise<T>;
  /** Closes pooled connections; in-flight requests finish first. */
  close(): Promise<void>;
}

/** One client per account: REST and GraphQL share its connections, concurrency and budget. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const budget = new RateLimitBudget(options.clock);
  const http = new HttpTransport(options, budget);
  return {
    rest: new RestClient(http),
    graphql: new GraphqlClient(http, options.clock),
    budget,
    hold: (work) => options.inflight?.track(work) ?? work,
    close: () => http.close(),
  };
}
