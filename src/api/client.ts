import { GraphqlClient } from './graphql.js';
import { type ApiClientOptions, HttpTransport } from './http.js';
import { RateLimitBudget } from './rate-limit.js';
import { RestClient } from './rest.js';
import { backgroundSlots } from './semaphore.js';

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
  /**
   * Background requests that may be sent ahead of their turn (billing's next chunk while it stores
   * one): all background slots but one, so a retry it waits on always finds one. None under a
   * virtual clock, which moves only when nothing is in flight.
   */
  readonly requestsAhead: number;
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
    requestsAhead: options.inflight === undefined ? backgroundSlots(options.concurrency) - 1 : 0,
    close: () => http.close(),
  };
}
