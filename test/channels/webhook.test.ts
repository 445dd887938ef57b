import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runNotifications } from '../../src/channels/evaluator.js';
import { destinationsOf } from '../../src/channels/webhook.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, signatureHeader } from '../../src/channels/webhook-signature.js';
import { configAsYaml } from '../../src/config/display.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { BARE_COMMAND_LINE } from '../../src/messages/commands.js';
import { type AlertBench, alertBench, budgetFinding, MINUTE } from '../alerts/support.js';
import { rowsOf } from '../helpers/store.js';
import {
  loadVerificationExample,
  startWebhookReceiver,
  type VerifyDelivery,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const SECRET = 'webhook-secret-0001-abcdef';

let verify: VerifyDelivery;
beforeAll(async () => {
  ({ verify } = await loadVerificationExample());
});

let bench: AlertBench | undefined;
let receiver: WebhookReceiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  bench?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  bench = receiver = dir = undefined;
});

/** A bench whose `webhook` section is parsed from YAML-shaped input (a secret file included). */
function benchWith(webhook: Record<string, unknown>): AlertBench {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-webhook-'));
  writeFileSync(join(dir, 'hook-secret'), `${SECRET}\n`);
  const parsed = parseConfig(
    { accounts: [{ name: 'sim', apiKey: 'sim-key-0001' }], webhook },
    { env: {}, baseDir: dir },
  );
  return alertBench((config: Config) => {
    config.webhook = parsed.webhook;
  });
}

/** A receiver on the bench's clock, answering `answer` (200 by default). */
async function receiverFor(answer?: Parameters<typeof startWebhookReceiver>[0]['answer']) {
  const clock = { now: () => bench?.clock.now() ?? 0 };
  return startWebhookReceiver({ secret: SECRET, verify, now: clock.now, answer });
}

/** Ticks every minute until the receiver has `count` requests (at most an hour of virtual time). */
async function until(count: number) {
  for (let minute = 0; minute < 60 && (receiver?.received.length ?? 0) < count; minute++) {
    await bench?.tick([budgetFinding('monthly', 'actual', 80)]);
    await bench?.clock.advanceBy(MINUTE);
  }
  expect(receiver?.received.length).toBe(count);
}

async function webhookRows() {
  return rowsOf((bench as AlertBench).db, ['webhook']);
}

describe('the webhook channel against a receiver that checks signatures', () => {
  it('delivers a signed, versioned payload that the documented check accepts', async () => {
    bench = benchWith({});
    receiver = await receiverFor();
    bench.config.webhook = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'k' }],
        webhook: { destinations: [{ name: 'ops-bot', url: receiver.url, secretFile: 'hook-secret' }] },
      },
      { env: {}, baseDir: dir as string },
    ).webhook;
    await until(1);
    const [delivery] = receiver.received;
    expect(delivery?.verdict).toMatchObject({ ok: true });
    const payload = (delivery?.verdict as { payload: Record<string, unknown> } | undefined)?.payload ?? {};
    expect(payload).toMatchObject({ version: 1, kind: 'notification', reason: 'first', status: 'firing' });
    expect(delivery?.headers[DELIVERY_HEADER.toLowerCase()]).toBe(payload.deliveryId);
    expect(delivery?.headers['content-type']).toBe('application/json');
    // The timestamp is the daemon's clock at the attempt, not the machine's.
    const t = Number(/t=(\d+)/.exec(String(delivery?.headers[SIGNATURE_HEADER.toLowerCase()]))?.[1]);
    expect(t * 1000).toBeLessThanOrEqual(bench.clock.now());
    expect(t * 1000).toBeGreaterThan(bench.clock.now() - 2 * MINUTE);
    const [row] = await webhookRows();
    expect([row?.target, row?.deliveredAt !== null, row?.attempts]).toEqual(['ops-bot', true, 1]);
    // Nothing more for the same alert: delivered once.
    await until(1);
  });

  it('catches a forged, an altered and a replayed delivery with the documented check', async () => {
    bench = benchWith({});
    receiver = await receiverFor();
    bench.config.webhook = {
      destinations: [{ name: 'ops-bot', url: receiver.url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    await until(1);
    const genuine = receiver.received[0];
    expect(genuine?.verdict.ok).toBe(true);
    const body = genuine?.body as string;
    const post = (headers: Record<string, string>, text: string) =>
      fetch(receiver?.url as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });
    const now = bench.clock.now();
    const fresh = { ...JSON.parse(body), deliveryId: '00000000-0000-4000-8000-000000000001' };
    // Forged: signed now, with another secret.
    await post({ [SIGNATURE_HEADER]: signatureHeader('not-the-secret-0001', now, body) }, body);
    // Altered: the genuine signature, a body with another figure.
    await post(
      { [SIGNATURE_HEADER]: String(genuine?.headers['podwarden-signature']) },
      body.replace('"status":"firing"', '"status":"resolved"'),
    );
    // Replayed as it was: the same signature and delivery id.
    await post({ [SIGNATURE_HEADER]: String(genuine?.headers['podwarden-signature']) }, body);
    // Replayed later with a new id, correctly signed but six minutes old.
    const old = JSON.stringify(fresh);
    await post({ [SIGNATURE_HEADER]: signatureHeader(SECRET, now - 6 * MINUTE, old) }, old);
    const verdicts = receiver.received.slice(1).map((delivery) => delivery.verdict);
    expect(verdicts).toEqual([
      { ok: false, error: 'bad signature' },
      { ok: false, error: 'bad signature' },
      { ok: false, error: `delivery ${genuine?.verdict.ok && genuine.verdict.payload.deliveryId} seen before` },
      { ok: false, error: 'stale timestamp: a replay?' },
    ]);
    // The same fresh body signed now passes: the check refuses what it must, not everything.
    await post({ [SIGNATURE_HEADER]: signatureHeader(SECRET, now, old) }, old);
    expect(receiver.received.at(-1)?.verdict.ok).toBe(true);
  });

  it('retries a 500 from its outbox: one delivery id, delivered once', async () => {
    bench = benchWith({});
    receiver = await receiverFor((index) => ({ status: index === 0 ? 500 : 200 }));
    bench.config.webhook = {
      destinations: [{ name: 'ops-bot', url: receiver.url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    await until(2);
    const [first, second] = receiver.received;
    const ids = receiver.received.map((delivery) => delivery.headers['podwarden-delivery']);
    expect(ids[0]).toBe(ids[1]);
    expect(first?.body).toBe(second?.body);
    // A new timestamp at each attempt, so the retry is fresh for the receiver's window.
    expect(first?.headers['podwarden-signature']).not.toBe(second?.headers['podwarden-signature']);
    expect([first?.status, second?.status, second?.verdict.ok]).toEqual([500, 200, true]);
    expect(receiver.seen.size).toBe(1);
    const rows = await webhookRows();
    expect(rows.map((row) => [row.attempts, row.deliveredAt !== null, row.finishedAt !== null])).toEqual([
      [2, true, true],
    ]);
    await until(2);
  });

  it("waits out a 429's Retry-After, longer than its own backoff", async () => {
    bench = benchWith({});
    receiver = await receiverFor((index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '300' } } : { status: 200 },
    );
    bench.config.webhook = {
      destinations: [{ name: 'ops-bot', url: receiver.url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    await until(1);
    const [row] = await webhookRows();
    const refusedAt = bench.clock.now() - MINUTE;
    // The first backoff would be one minute; the receiver asked for five.
    expect(row?.nextAttemptAt).toBe(refusedAt + 5 * MINUTE);
    await until(2);
    expect(receiver.received[1]?.verdict.ok).toBe(true);
  });

  it('gives up at once on a 4xx other than 408 and 429', async () => {
    bench = benchWith({});
    receiver = await receiverFor(() => ({ status: 410 }));
    bench.config.webhook = {
      destinations: [{ name: 'gone', url: receiver.url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    await until(1);
    // An hour more: never attempted again.
    await until(1);
    const [row] = await webhookRows();
    expect([row?.finishedAt !== null, row?.deliveredAt, row?.lastError]).toEqual([true, null, 'HTTP 410: no']);
  });

  it('follows no redirect: the signed body goes only where the file says', async () => {
    bench = benchWith({});
    receiver = await receiverFor(() => ({ status: 307, headers: { location: 'http://127.0.0.1:9/elsewhere' } }));
    bench.config.webhook = {
      destinations: [{ name: 'moved', url: receiver.url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    await until(1);
    await until(1);
    const [row] = await webhookRows();
    expect([row?.finishedAt !== null, row?.deliveredAt, row?.lastError]).toEqual([true, null, 'HTTP 307: no']);
  });

  it('retries when nothing answers, and delivers the same id once the receiver is up', async () => {
    bench = benchWith({});
    const closed = await receiverFor();
    const url = closed.url;
    await closed.close();
    bench.config.webhook = {
      destinations: [{ name: 'down', url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    for (let minute = 0; minute < 5; minute++) {
      await bench.tick([budgetFinding('monthly', 'actual', 80)]);
      await bench.clock.advanceBy(MINUTE);
    }
    const [row] = await webhookRows();
    expect(row?.attempts).toBeGreaterThan(0);
    expect([row?.deliveredAt, row?.finishedAt, row?.lastError]).toEqual([null, null, 'ECONNREFUSED']);
    receiver = await receiverFor();
    bench.config.webhook = {
      ...bench.config.webhook,
      destinations: [{ name: 'down', url: receiver.url, secret: SECRET }],
    };
    await until(1);
    expect(receiver.received[0]?.headers['podwarden-delivery']).toBe(
      (row?.payload as { deliveryId?: string } | undefined)?.deliveryId,
    );
  });
});

describe('what the logs say', () => {
  it('names the destination, never its URL (a token in the path) or its secret', async () => {
    bench = benchWith({});
    receiver = await receiverFor((index) => ({ status: [500, 200][index] ?? 410 }));
    const url = `${receiver.url}/T0KEN-in-the-path-0001`;
    bench.config.webhook = {
      destinations: [{ name: 'ops-bot', url, secret: SECRET }],
      timeoutMs: 10_000,
      giveUpAfterMs: 86_400_000,
    };
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ level: 'debug', destination });
    for (let minute = 0; minute < 5; minute++) {
      await runNotifications({
        config: bench.config,
        db: bench.db,
        clock: bench.clock,
        now: bench.clock.now(),
        log,
        signal: new AbortController().signal,
        events: bench.events,
        commandLine: BARE_COMMAND_LINE,
        findings: [budgetFinding('monthly', 'actual', 80)],
        unjudged: [],
      });
      await bench.clock.advanceBy(MINUTE);
    }
    const text = lines.join('');
    expect(text).toContain('webhook not delivered; will retry');
    expect(text).toContain('webhook delivered');
    expect(text).toContain('"destination":"ops-bot"');
    expect(text).not.toContain('T0KEN');
    expect(text).not.toContain(SECRET);
  });

  it('masks the secret where the configuration is shown', () => {
    const config = parseConfig(
      {
        accounts: [{ name: 'sim', apiKey: 'sim-key-0001' }],
        webhook: { destinations: [{ name: 'ops-bot', url: 'https://hooks.example.com/x', secret: SECRET }] },
      },
      { env: {}, baseDir: '/' },
    );
    expect(configAsYaml(config)).not.toContain(SECRET);
    expect(configAsYaml(config)).toContain('secret: ');
  });
});

describe('destinations', () => {
  it('sends to the destinations a route names, else to the first', () => {
    const names = ['ops-bot', 'tickets', 'audit'];
    expect(destinationsOf(['tickets', 'audit'], names)).toEqual(['tickets', 'audit']);
    expect(destinationsOf(['ana@example.com'], names)).toEqual(['ops-bot']);
    expect(destinationsOf([], names)).toEqual(['ops-bot']);
    expect(destinationsOf(['nobody'], [])).toEqual([]);
  });

  it('refuses duplicate names, short secrets, both secret forms and credentials in the URL', () => {
    const parse = (destinations: unknown[]) => () =>
      parseConfig({ accounts: [{ name: 'sim', apiKey: 'k' }], webhook: { destinations } }, { env: {}, baseDir: '/' });
    const ok = { name: 'a', url: 'https://hooks.example.com/x', secret: SECRET };
    expect(parse([ok, { ...ok }])).toThrow(
      /webhook\.destinations\[1\]\.name: destination "a" is already defined at index 0/,
    );
    expect(parse([{ ...ok, secret: 'short' }])).toThrow(/too short: at least 16 characters/);
    expect(parse([{ ...ok, secretFile: 'x' }])).toThrow(/set secret or secretFile, not both/);
    expect(parse([{ ...ok, url: 'https://user:pw@hooks.example.com/x' }])).toThrow(/without credentials/);
    expect(parse([{ ...ok, name: 'Ops Bot' }])).toThrow(/invalid destination name "Ops Bot"/);
  });
});
