import { boundedMemo } from './memo.js';

/** A request line's target as the simulator reads it: the URL parser's path and query. */
export interface RequestTarget {
  /** The path, normalised as the URL parser does (dot segments, percent-encoding). */
  pathname: string;
  /** The query as the URL parser gives it (`?a=b`, or '' when none). */
  search: string;
  /** The query for the request log, with GraphQL's `api_key` masked: keys never reach a log. */
  logQuery: string;
}

/**
 * Targets read, by the request line's text. A collector asks for the same few URLs every minute
 * (`/v2/pods?includeClusterPods=true`, the catalog, each endpoint's workers): each text is parsed
 * with the URL parser and its query printed back for the log once. The entry is what the parser
 * gave for that very text, so it is exact; bounded, so a client sending ever new URLs (billing windows) only parses each once more.
 */
export const targetOf: (requestUrl: string) => RequestTarget = boundedMemo(512, (requestUrl: string) => {
  const url = new URL(requestUrl, 'http://simulator');
  return { pathname: url.pathname, search: url.search, logQuery: maskApiKey(url.searchParams) };
});

/** The query string for the log, with GraphQL's `api_key` masked. */
function maskApiKey(query: URLSearchParams): string {
  if (!query.has('api_key')) return query.toString();
  const copy = new URLSearchParams(query);
  copy.set('api_key', '[REDACTED]');
  return copy.toString();
}
