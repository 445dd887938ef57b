export { type ApiClient, createApiClient } from './client.js';
export { ApiError, NoDataError } from './errors.js';
export type { GraphqlClient } from './graphql.js';
export type { ApiClientOptions, RequestEvent } from './http.js';
export type { RateLimitBudget, RateLimitWindow } from './rate-limit.js';
export type { BillingList, BillingQuery, BillingSchema, CallOptions, RestClient } from './rest.js';
