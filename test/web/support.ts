import { request } from 'undici';

/**
 * One request to the status server as a browser would send it: GET unless told, a `form` sent
 * urlencoded as a form post is. Answers status, headers and the body as text.
 */
export async function call(
  url: string,
  init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; form?: Record<string, string> } = {},
) {
  const response = await request(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...init.headers,
    },
    body: init.form ? new URLSearchParams(init.form).toString() : undefined,
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}
