import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/schema.js';
import { csrfFor, loadLinkSecret } from '../../src/links/index.js';
import { hasChromium, launchBrowser } from '../helpers/browser.js';
import { type DaemonHarness, onePodScenario, startDaemonServer } from '../metrics/support.js';
import { call } from './support.js';

// DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1 sends requests from
// the victim's browser (so from loopback) with its own Host and Origin, and Sec-Fetch-Site says
// same-origin because to the browser it is.

const TOKEN = 'hosts-test-token-0123456789';

const scenario = onePodScenario('web-hosts');

async function start(tune: (http: Config['http']) => void = () => {}) {
  const { h, server } = await startDaemonServer(scenario, (config) => tune(config.http));
  await h.drive(h.daemon.collect('pods', 'sim'));
  const port = new URL(server.url).port;
  return { h, server, port };
}

/** What a rebinding page of `name` sends: its own Host and Origin, and same-origin. */
function rebound(name: string, port: string, extra: Record<string, string> = {}) {
  return { host: `${name}:${port}`, origin: `http://${name}:${port}`, 'sec-fetch-site': 'same-origin', ...extra };
}

/** The status page's CSRF value for a loopback viewer: what the attacker reads from the page. */
async function loopbackCsrf(harness: DaemonHarness): Promise<string> {
  return csrfFor(
    await loadLinkSecret(harness.daemon.db, harness.config, harness.clock),
    'status-page-form',
    'loopback',
  );
}

const snoozes = (harness: DaemonHarness) =>
  harness.daemon.db.sqlite.prepare('SELECT count(*) AS n FROM pod_snoozes').get() as { n: number };

describe('the Host header: only the names podwarden is reached by are answered', () => {
  it('without a token: a rebinding page can neither read the status page nor post a form', async () => {
    const { h, server, port } = await start();
    const headers = rebound('evil.example', port);
    const page = await call(`${server.url}/`, { headers });
    expect(page.status).toBe(421);
    expect(page.body).not.toContain('csrf');
    expect(page.body).toContain('http.allowedHosts');
    expect(page.body).toContain('evil.example');
    expect((await call(`${server.url}/pods/sim/pod-1`, { headers })).status).toBe(421);
    const api = await call(`${server.url}/api/status`, { headers });
    expect(api.status).toBe(421);
    expect(api.body).not.toContain('pod-1');

    const form = { csrf: await loopbackCsrf(h), account: 'sim', podId: 'pod-1', for: String(2 * 3_600_000) };
    const keep = await call(`${server.url}/console/keep-running`, { method: 'POST', form, headers });
    expect(keep.status).toBe(421);
    const silence = await call(`${server.url}/console/silence`, {
      method: 'POST',
      form: { csrf: form.csrf, alertKey: 'any', for: String(4 * 3_600_000) },
      headers,
    });
    expect(silence.status).toBe(421);
    expect(snoozes(h).n).toBe(0);
    // An email link's pages too, and the login form.
    expect((await call(`${server.url}/pods/sim/pod-1/keep-running?t=x`, { headers })).status).toBe(421);

    // The probes and /metrics answer whatever the Host: Prometheus scrapes a pod by its IP or a
    // service name, and they reveal nothing that lets anyone act.
    expect((await call(`${server.url}/metrics`, { headers })).status).toBe(200);
    expect((await call(`${server.url}/healthz`, { headers })).status).toBe(200);
    expect((await call(`${server.url}/readyz`, { headers })).status).not.toBe(421);
  });

  it('without a token: loopback names and the listen address still work, forms included', async () => {
    const { h, server, port } = await start();
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST.:${port}`, `[::1]:${port}`]) {
      expect((await call(`${server.url}/`, { headers: { host } })).status, host).toBe(200);
    }
    expect((await call(`${server.url}/api/status`, { headers: { host: `localhost:${port}` } })).status).toBe(200);
    const form = { csrf: await loopbackCsrf(h), account: 'sim', podId: 'pod-1', for: String(2 * 3_600_000) };
    const keep = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form,
      headers: rebound('localhost', port),
    });
    expect(keep.status).toBe(200);
    expect(snoozes(h).n).toBe(1);
  });

  it('the origin check compares against allowed hosts, not against whatever Host says', async () => {
    const { h, server, port } = await start();
    const form = { csrf: await loopbackCsrf(h), account: 'sim', podId: 'pod-1', for: String(2 * 3_600_000) };
    // An allowed Host with a foreign Origin (an old browser without Sec-Fetch-Site).
    const foreign = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form,
      headers: { host: `localhost:${port}`, origin: `http://evil.example:${port}` },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('another origin');
    // Another port of an allowed name is another origin.
    const otherPort = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form,
      headers: { host: `localhost:${port}`, origin: 'http://localhost:3000' },
    });
    expect(otherPort.status).toBe(403);
    expect(snoozes(h).n).toBe(0);
  });

  it("publicUrl's host is answered, so the email links' confirmation pages work through it", async () => {
    const { server } = await start((http) => {
      http.publicUrl = 'https://podwarden.example.com';
    });
    const headers = { host: 'podwarden.example.com', 'x-forwarded-proto': 'https' };
    expect((await call(`${server.url}/`, { headers })).status).toBe(200);
    const link = await call(`${server.url}/pods/sim/pod-1/keep-running?t=not-a-token`, { headers });
    expect(link.status).toBe(400);
    expect(link.body).toContain('This link is incomplete');
    // A POST from the public origin passes the origin check (and then needs its check value).
    const act = await call(`${server.url}/pods/sim/pod-1/keep-running`, {
      method: 'POST',
      form: { t: 'not-a-token' },
      headers: { ...headers, origin: 'https://podwarden.example.com', 'sec-fetch-site': 'same-origin' },
    });
    expect(act.status).not.toBe(421);
    expect(act.body).not.toContain('another origin');
    expect(act.body).toContain('lacks its check value');
    expect((await call(`${server.url}/`, { headers: { host: 'other.example.com' } })).status).toBe(421);
  });

  it('a host listed in http.allowedHosts is answered, its forms included', async () => {
    const { h, server, port } = await start((http) => {
      http.allowedHosts = ['podwarden.lan'];
    });
    expect((await call(`${server.url}/`, { headers: { host: `podwarden.lan:${port}` } })).status).toBe(200);
    const form = { csrf: await loopbackCsrf(h), account: 'sim', podId: 'pod-1', for: String(2 * 3_600_000) };
    const keep = await call(`${server.url}/console/keep-running`, {
      method: 'POST',
      form,
      headers: rebound('podwarden.lan', port),
    });
    expect(keep.status).toBe(200);
    expect((await call(`${server.url}/`, { headers: rebound('evil.example', port) })).status).toBe(421);
  });

  it('with a token: the Host is checked too, before the token', async () => {
    const { server, port } = await start((http) => {
      http.bearerToken = TOKEN;
    });
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect((await call(`${server.url}/`, { headers: rebound('evil.example', port, bearer) })).status).toBe(421);
    expect((await call(`${server.url}/api/status`, { headers: rebound('evil.example', port, bearer) })).status).toBe(
      421,
    );
    const login = await call(`${server.url}/login`, {
      method: 'POST',
      form: { token: TOKEN },
      headers: rebound('evil.example', port),
    });
    expect(login.status).toBe(421);
    expect(login.headers['set-cookie']).toBeUndefined();
    expect((await call(`${server.url}/`, { headers: bearer })).status).toBe(200);
    expect((await call(`${server.url}/metrics`, { headers: rebound('evil.example', port, bearer) })).status).toBe(200);
  });

  it('a real browser whose DNS sends evil.example to this machine gets the refusal, not the page', async (context) => {
    if (!hasChromium()) return context.skip('no Chromium here');
    const { port } = await start();
    const browser = await launchBrowser(['--host-resolver-rules=MAP evil.example 127.0.0.1']);
    try {
      const page = await browser.newPage();
      const rebound = await page.goto(`http://evil.example:${port}/`);
      expect(rebound?.status()).toBe(421);
      expect(await page.content()).toContain('http.allowedHosts');
      const loopback = await page.goto(`http://localhost:${port}/`);
      expect(loopback?.status()).toBe(200);
    } finally {
      await browser.close();
    }
  });
});
