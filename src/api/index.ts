export { type ApiClient, createApiClient, DEFAULT_GRAPHQL_URL, DEFAULT_REST_BASE_URL } from './client.js';
export { ApiError, type ApiErrorKind, NoDataError } from './errors.js';
export type { GraphqlClient } from './graphql.js';
export type { ApiClientOptions, RequestEvent } from './http.js';
export type { RateLimitBudget, RateLimitWindow } from './rate-limit.js';
export type {
  BillingList,
  BillingQuery,
  BillingRoutePath,
  BillingSchema,
  CallOptions,
  CpuTypeQuery,
  DataCenterQuery,
  GpuTypeQuery,
  RestClient,
} from './rest.js';
