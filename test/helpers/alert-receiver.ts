import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AlertReceiver {
  url: string;
  /** Every batch posted to /api/v2/alerts, in order, with when it arrived by `now()`. */
  posted: Array<{ at: number; alerts: Array<{ labels: Record<string, string> }> }>;
  close(): Promise<void>;
}

/**
 * A peer speaking Alertmanager's `POST /api/v2/alerts` over real HTTP, answering 200 once
 * `accepting()` holds (503 before): for tests about what podwarden posts, without an Alertmanager.
 */
export async function startAlertReceiver(
  now: () => number,
  accepting: () => boolean = () => true,
): Promise<AlertReceiver> {
  const posted: AlertReceiver['posted'] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      if (!accepting()) {
        response.writeHead(503).end('unavailable');
        return;
      }
      posted.push({ at: now(), alerts: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
