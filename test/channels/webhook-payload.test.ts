import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/pipeline.js';
import { webhookRenderer } from '../../src/channels/webhook.js';
import { emailLinks } from '../../src/links/email-links.js';
import { renderMessage } from '../../src/messages/email.js';
import { renderDigest, renderFlappingNotice } from '../../src/messages/notices.js';
import {
  digestPayload,
  flappingPayload,
  notificationPayload,
  type WebhookPayload,
} from '../../src/messages/webhook-payload.js';
import {
  ALERTS,
  DIGEST,
  FLAPPING,
  firstNotification,
  idleGroupedNotification,
  NOW,
  resolvedNotification,
} from '../messages/fixtures.js';

/**
 * Every kind of webhook payload against golden files, each valid against the shipped JSON Schema:
 * `UPDATE_GOLDEN=1 npx vitest run test/channels/webhook-payload.test.ts` rewrites them.
 */
const GOLDEN = resolve('test', 'golden', 'webhook');
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (update || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

const schema = JSON.parse(readFileSync(resolve('docs', 'webhook-payload.v1.schema.json'), 'utf8'));
const ajv = new Ajv2020({ allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
const validate = ajv.compile(schema);

function expectValid(payload: unknown): void {
  const valid = validate(payload);
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(valid).toBe(true);
}

/** Fixed delivery ids so the files stay put. */
const idOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Links as the daemon makes them with `http.publicUrl` set, counted nonces (as the golden emails). */
function linksFor(notification: Notification) {
  let count = 0;
  return emailLinks({
    publicUrl: 'https://podwarden.example.com',
    secret: Buffer.from('golden-link-secret-0001'),
    expiryMs: 24 * 3_600_000,
    timeZone: 'Europe/Berlin',
    nonce: () => `nonce-${++count}`,
    episodeOf: () => NOW - 30 * 60_000,
  })(notification);
}

const PAYLOADS: Record<string, WebhookPayload> = {
  ...Object.fromEntries(
    Object.entries(ALERTS).map(([name, alert], index) => [
      name,
      notificationPayload(firstNotification(alert), idOf(index + 1)),
    ]),
  ),
  'idle-resolved': notificationPayload(resolvedNotification(ALERTS['idle-notify'] as never), idOf(101)),
  'idle-warn-links': notificationPayload(firstNotification(ALERTS['idle-warn'] as never), idOf(102), {
    actions: linksFor(firstNotification(ALERTS['idle-warn'] as never)),
  }),
  'idle-grouped-links': notificationPayload(idleGroupedNotification(), idOf(103), {
    actions: linksFor(idleGroupedNotification()),
  }),
  flapping: flappingPayload(FLAPPING, idOf(104)),
  digest: digestPayload(DIGEST, idOf(105)),
};

describe('golden webhook payloads', () => {
  for (const [name, payload] of Object.entries(PAYLOADS)) {
    it(`${name}: valid against the schema, as reviewed`, () => {
      expectValid(payload);
      golden(`${name}.json`, `${JSON.stringify(payload, null, 2)}\n`);
    });
  }

  it('every golden file is one of the payloads above, and valid', () => {
    const files = readdirSync(GOLDEN).filter((file) => file.endsWith('.json'));
    expect(files.sort()).toEqual(
      Object.keys(PAYLOADS)
        .map((name) => `${name}.json`)
        .sort(),
    );
    for (const file of files) expectValid(JSON.parse(readFileSync(join(GOLDEN, file), 'utf8')));
  });

  it('says what the email says: its subject as the headline, its links as actions', () => {
    const warn = firstNotification(ALERTS['idle-warn'] as never);
    const actions = linksFor(warn);
    expect(PAYLOADS['idle-warn-links']?.headline).toBe(renderMessage(warn, { actions }).subject);
    expect(PAYLOADS['idle-warn-links']?.actions.map((action) => action.label)).toEqual(
      actions.map((action) => action.label),
    );
    expect(PAYLOADS.flapping?.headline).toBe(renderFlappingNotice(FLAPPING).subject);
    expect(PAYLOADS.digest?.headline).toBe(renderDigest(DIGEST).subject);
  });

  it('the schema refuses what a receiver could not read', () => {
    const good = PAYLOADS['idle-warn-links'] as WebhookPayload;
    for (const bad of [
      { ...good, version: 2 },
      { ...good, deliveryId: 'not-a-uuid' },
      { ...good, status: 'pending' },
      { ...good, createdAt: '2026-11-02 14:30' },
      { ...good, alerts: [{ ...good.alerts[0], startsAt: 1793630700000 }] },
      { ...PAYLOADS.flapping, flapping: undefined },
    ]) {
      expect(validate(JSON.parse(JSON.stringify(bad)))).toBe(false);
    }
  });
});

describe('rendering per destination', () => {
  it('one payload per destination the route names, each with its own delivery id', () => {
    let n = 0;
    const renderer = webhookRenderer(['ops-bot', 'tickets', 'audit'], undefined, undefined, () => idOf(++n));
    const named = { ...firstNotification(ALERTS['idle-warn'] as never), receiver: ['audit', 'tickets'] };
    const rendered = renderer.notification(named) as Array<{ target: string; payload: WebhookPayload }>;
    expect(rendered.map((row) => [row.target, row.payload.deliveryId])).toEqual([
      ['tickets', idOf(1)],
      ['audit', idOf(2)],
    ]);
    const byEmail = renderer.flapping(FLAPPING) as ReadonlyArray<{ target?: string }>;
    expect(byEmail.map((row) => row.target)).toEqual(['ops-bot']);
    // None configured yet (a route names webhook): one row under no target, kept, not lost.
    const none = webhookRenderer([]).notification(named) as ReadonlyArray<{ target?: string }>;
    expect(none.map((row) => row.target)).toEqual(['']);
  });

  it('writes no flapping notice or digest while no destination is configured: no route asked for them', () => {
    const unconfigured = webhookRenderer([]);
    expect(unconfigured.flapping(FLAPPING)).toEqual([]);
    expect(unconfigured.digest?.(DIGEST)).toEqual([]);
  });
});
