import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { onePodScenario, startDaemonServer } from '../metrics/support.js';
import { call } from './support.js';

const TOKEN = 'page-test-token-0123456789';
const CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const scenario = onePodScenario('web-access', 'one <b>bold</b>');

async function start(options: { token?: string; listen?: string } = {}) {
  const { h, server } = await startDaemonServer(scenario, (config) => {
    config.http.listen = options.listen ?? '127.0.0.1:0';
    if (options.token) config.http.bearerToken = options.token;
  });
  await h.drive(h.daemon.collect('pods', 'sim'));
  return { h, server };
}

/** An address of this machine that is not loopback, so a request to it does not come from loopback. */
function outsideAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((info) => info && info.family === 'IPv4' && !info.internal)?.address;
}

describe('the status page: access and headers', () => {
  it('without a token: served to loopback with a banner, the security headers and a cache-forever stylesheet', async () => {
    const { server } = await start();
    const page = await call(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CSP);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('Served to this machine only');
    // Names from the API are escaped, never markup.
    expect(page.body).not.toContain('<b>bold</b>');
    expect(page.body).not.toMatch(/<script|style="/);

    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)?.[1] ?? '';
    expect(href).toMatch(/^\/static\/podwarden\.css\?v=[0-9a-f]{16}$/);
    const css = await call(`${server.url}${href}`);
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await call(`${server.url}/static/podwarden.css?v=old`)).headers['cache-control']).toBe('no-cache');

    const pod = await call(`${server.url}/pods/sim/pod-1`);
    expect(pod.status).toBe(200);
    expect(pod.body).toContain('one &#60;b&#62;bold&#60;/b&#62;');
    expect((await call(`${server.url}/pods/nope/pod-1`)).status).toBe(404);
    // The routes of before are unchanged.
    expect((await call(`${server.url}/api/status`)).status).toBe(200);
  });

  it('without a token: refuses a client that is not on loopback, saying why', async (context) => {
    const address = outsideAddress();
    if (!address) return context.skip('no non-loopback IPv4 address on this machine');
    const { server } = await start({ listen: '0.0.0.0:0' });
    const port = new URL(server.url).port;
    const page = await call(`http://${address}:${port}/`);
    expect(page.status).toBe(403);
    expect(page.body).toContain('loopback clients only');
    expect(page.headers['content-security-policy']).toBe(CSP);
  });

  it('with a token: a login form, a session cookie derived from the token, then the page', async () => {
    const { server } = await start({ token: TOKEN });
    const anonymous = await call(`${server.url}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toContain('<form class="inline" method="post" action="/login">');
    expect((await call(`${server.url}/pods/sim/pod-1`)).status).toBe(401);

    const wrong = await call(`${server.url}/login`, { method: 'POST', form: { token: 'guess' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body).toContain('not the configured token');

    const foreign = await call(`${server.url}/login`, {
      method: 'POST',
      form: { token: TOKEN },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['set-cookie']).toBeUndefined();

    const login = await call(`${server.url}/login`, { method: 'POST', form: { token: TOKEN } });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/');
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^podwarden_session=[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0] as string;

    const page = await call(`${server.url}/`, { headers: { cookie: session } });
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('Served to this machine only');
    expect((await call(`${server.url}/pods/sim/pod-1`, { headers: { cookie: session } })).status).toBe(200);
    expect((await call(`${server.url}/`, { headers: { cookie: 'podwarden_session=forged' } })).status).toBe(401);
    // Scripts keep using the bearer header, for the page as for /metrics and /api/status.
    expect((await call(`${server.url}/`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await call(`${server.url}/api/status`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
      200,
    );
    expect((await call(`${server.url}/api/status`, { headers: { cookie: session } })).status).toBe(401);
  });

  it('with a token: the forms are refused without the session, and with it need their CSRF value', async () => {
    const { server } = await start({ token: TOKEN });
    const form = { account: 'sim', podId: 'pod-1', for: String(2 * 3_600_000) };
    const anonymous = await call(`${server.url}/console/keep-running`, { method: 'POST', form });
    expect(anonymous.status).toBe(401);
    const login = await call(`${server.url}/login`, { method: 'POST', form: { token: TOKEN } });
    const session = String(login.headers['set-cookie']).split(';')[0] as string;
    const noCsrf = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form,
      headers: { cookie: session },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body).toContain('lacks its check value');
    const wrongCsrf = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form: { ...form, csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
      headers: { cookie: session },
    });
    expect(wrongCsrf.status).toBe(403);
    // The links' confirmation pages need no session: the signed token is the authority.
    const link = await call(`${server.url}/pods/sim/pod-1/keep-running?t=not-a-token`);
    expect(link.status).toBe(400);
    expect(link.body).toContain('This link is incomplete');
  });

  it('marks the cookie Secure when a proxy says the request came over https', async () => {
    const { server } = await start({ token: TOKEN });
    const login = await call(`${server.url}/login`, {
      method: 'POST',
      form: { token: TOKEN },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(login.status).toBe(303);
    expect(String(login.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });
});
