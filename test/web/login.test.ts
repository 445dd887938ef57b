import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { type MetricsServer } from '../../src/web/server.js';
import { startDaemonServer } from '../metrics/support.js';

const TOKEN = 'login-test-token-0123456789';

const scenario = {
  name: 'web-login',
  start: '2026-11-02T09:00:00Z',
  apiKey: 'sim-key',
  catalog: { gpus: [] },
  pods: [],
};

let server: MetricsServer | undefined;

async function start(tune: (http: Config['http']) => void = () => {}) {
  const started = await startDaemonServer(scenario, (config) => {
    config.http.bearerToken = TOKEN;
    tune(config.http);
  });
  server = started.server;
  return started;
}

async function login(token: string, headers: Record<string, string> = {}) {
  const response = await request(`${server?.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ token }).toString(),
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

const from = (address: string) => ({ 'x-forwarded-for': address });

async function wrongTokens(count: number, headers: Record<string, string> = {}) {
  for (let attempt = 0; attempt < count; attempt++) {
    const wrong = await login(`guess-${attempt}`, headers);
    expect(wrong.status, `wrong token ${attempt + 1}`).toBe(401);
  }
}

describe('/login: guessing is limited, and only the guessing address is refused', () => {
  it('after ten wrong tokens an address is refused, the right token included, while other addresses sign in', async () => {
    const { h } = await start((http) => {
      http.trustedProxies = ['127.0.0.1'];
    });
    const guesser = from('203.0.113.1');
    await wrongTokens(10, guesser);
    const refused = await login('guess-10', guesser);
    expect(refused.status).toBe(429);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect(refused.body).toContain('Too many wrong tokens from 203.0.113.1');
    // Not checked: a guesser must not learn from the answer whether a refused guess was right.
    const rightFromGuesser = await login(TOKEN, guesser);
    expect(rightFromGuesser.status).toBe(429);
    expect(rightFromGuesser.headers['set-cookie']).toBeUndefined();
    const right = await login(TOKEN, from('203.0.113.2'));
    expect(right.status).toBe(303);
    expect(String(right.headers['set-cookie'])).toMatch(/^podwarden_session=/);
    await h.clock.advanceBy(15 * 60_000);
    expect((await login('guess-12', guesser)).status).toBe(401);
    expect((await login(TOKEN, guesser)).status).toBe(303);
  });

  it('many addresses together hit one budget: past it each gets one guess, and a clean address still signs in', async () => {
    const { h } = await start((http) => {
      http.trustedProxies = ['127.0.0.1'];
    });
    // Five addresses, ten wrong tokens each: fifty, the budget of all addresses together.
    for (let client = 1; client <= 5; client++) await wrongTokens(10, from(`203.0.113.${client}`));
    const sixth = from('203.0.113.6');
    expect((await login('guess-a', sixth)).status).toBe(401);
    const again = await login('guess-b', sixth);
    expect(again.status).toBe(429);
    expect(again.body).toContain('Too many wrong tokens from all addresses together, one of them from 203.0.113.6');
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(14 * 60);
    expect((await login(TOKEN, sixth)).status).toBe(429);
    expect((await login(TOKEN, from('203.0.113.7'))).status).toBe(303);
    await h.clock.advanceBy(15 * 60_000);
    expect((await login('guess-c', sixth)).status).toBe(401);
    expect((await login(TOKEN, from('203.0.113.1'))).status).toBe(303);
  });

  it('X-Forwarded-For is ignored without a trusted proxy', async () => {
    await start();
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await login(`guess-${attempt}`, from(`203.0.113.${attempt + 1}`))).status).toBe(401);
    }
    const refused = await login('guess-10', from('203.0.113.99'));
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many wrong tokens from 127.0.0.1');
  });

  it('with a trusted proxy, the client is the last address X-Forwarded-For names that is not a trusted proxy', async () => {
    await start((http) => {
      http.trustedProxies = ['127.0.0.0/8', '10.0.0.0/8'];
    });
    // The left part is the client's to write; only what our proxies appended is believed.
    for (let attempt = 0; attempt < 10; attempt++) {
      const forged = `198.51.100.${attempt + 1}, 203.0.113.1, 10.1.2.3`;
      expect((await login(`guess-${attempt}`, from(forged))).status).toBe(401);
    }
    const refused = await login('guess-10', from('203.0.113.1'));
    expect(refused.status).toBe(429);
    expect(refused.body).toContain('Too many wrong tokens from 203.0.113.1');
    // Someone else behind the same proxy is not locked out by it.
    expect((await login('typo', from('203.0.113.2'))).status).toBe(401);
    expect((await login(TOKEN, from('203.0.113.2'))).status).toBe(303);
  });

  it('without a token and behind a trusted proxy, the page is served to loopback clients, not to the proxy', async () => {
    await start((http) => {
      http.bearerToken = undefined;
      http.trustedProxies = ['127.0.0.1'];
    });
    const page = (headers: Record<string, string>) => request(`${server?.url}/`, { headers });
    const outside = await page(from('203.0.113.5'));
    expect(outside.statusCode).toBe(403);
    expect(await outside.body.text()).toContain('203.0.113.5');
    const direct = await page({});
    expect(direct.statusCode).toBe(200);
    await direct.body.text();
  });
});
