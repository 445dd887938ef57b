/** A request line's target as the simulator reads it: the URL parser's path and query. */
export interface RequestTarget {
  /** The path, normalised as the URL parser does (dot segments, percent-encoding). */
  pathname: string;
  /** The query as the URL parser gives it (`?a=b`, or '' when none). */
  search: string;
  /** The query for the request log, with GraphQL's `api_key` masked: keys never reach a log. */
  logQuery: string;
}

/** The request line's target, read with the URL parser. */
export function targetOf(requestUrl: string): RequestTarget {
  const url = new URL(requestUrl, 'http://simulator');
  return { pathname: url.pathname, search: url.search, logQuery: maskApiKey(url.searchParams) };
}

/** The query string for the log, with GraphQL's `api_key` masked. */
function maskApiKey(query: URLSearchParams): string {
  if (!query.has('api_key')) return query.toString();
  const copy = new URLSearchParams(query);
  copy.set('api_key', '[REDACTED]');
  return copy.toString();
}
