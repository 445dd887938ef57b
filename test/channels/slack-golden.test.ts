import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RenderedPayload } from '../../src/alerts/outbox.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import { slackRenderer } from '../../src/channels/slack.js';
import type { SlackConfig } from '../../src/config/sections/slack.js';
import { emailLinks } from '../../src/links/email-links.js';
import type { SlackMessage } from '../../src/messages/slack.js';
import {
  ALERTS,
  DIGEST,
  FLAPPING,
  firstNotification,
  idleGroupedNotification,
  NOW,
  resolvedNotification,
} from '../messages/fixtures.js';
import { expectWithinSlackLimits, textsOf } from './slack-payload-limits.js';

/**
 * Every kind of Slack message, as the JSON posted to the webhook, against golden files: a change
 * to a message is a reviewed diff. `UPDATE_GOLDEN=1 npx vitest run test/channels/slack-golden.test.ts`
 * rewrites them.
 */
const GOLDEN = resolve('test', 'golden', 'slack');

function golden(name: string, message: SlackMessage): void {
  const actual = `${JSON.stringify(message, null, 2)}\n`;
  const path = join(GOLDEN, `${name}.json`);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name}.json differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(
    readFileSync(path, 'utf8'),
  );
}

const SECTION: SlackConfig = {
  destinations: [
    { name: 'ml-team', webhookUrl: 'https://hooks.slack.com/services/T0/B0/ml' },
    { name: 'finance', webhookUrl: 'https://hooks.slack.com/services/T0/B1/fin' },
  ],
  timeoutMs: 10_000,
  giveUpAfterMs: 86_400_000,
};

/** Links as the daemon makes them with `http.publicUrl`, with counted nonces so the files stay put. */
function renderer() {
  let count = 0;
  const links = emailLinks({
    publicUrl: 'https://podwarden.example.com',
    secret: Buffer.from('golden-link-secret-0001'),
    expiryMs: 24 * 3_600_000,
    timeZone: 'Europe/Berlin',
    nonce: () => `nonce-${++count}`,
    episodeOf: () => NOW - 30 * 60_000,
  });
  return slackRenderer(SECTION, { links, publicUrl: 'https://podwarden.example.com' });
}

/** The one destination's message (the default one's, unless the recipients name others). */
const notification = (n: Notification) => renderer().notification(n);
const only = (rendered: RenderedPayload[]) => {
  expect(rendered).toHaveLength(1);
  return rendered[0] as RenderedPayload;
};

const MESSAGES = {
  'idle-warn': notification(firstNotification(ALERTS['idle-warn'] as never)),
  'idle-notify': notification(firstNotification(ALERTS['idle-notify'] as never)),
  'idle-grouped': notification(idleGroupedNotification()),
  'budget-spent': notification(firstNotification(ALERTS['budget-spent'] as never)),
  'idle-resolved': notification(resolvedNotification(ALERTS['idle-notify'] as never)),
  flapping: renderer().flapping(FLAPPING),
  digest: renderer().digest(DIGEST),
};

describe('Slack messages', () => {
  for (const [name, rendered] of Object.entries(MESSAGES)) {
    it(`${name} matches its golden payload and keeps within Slack's limits`, () => {
      const message = only(rendered).payload as SlackMessage;
      golden(name, message);
      expectWithinSlackLimits(message);
      for (const text of textsOf(message)) {
        expect(text).not.toContain('undefined');
        expect(text).not.toContain('NaN');
      }
    });
  }

  it('goes to the default destination when no recipient names one, else to those named', () => {
    expect(MESSAGES['idle-warn'].map((row) => row.target)).toEqual(['ml-team']);
    const named = notification({
      ...firstNotification(ALERTS['idle-warn'] as never),
      receiver: ['finance', 'x@y.z', 'ml-team'],
    });
    expect(named.map((row) => row.target)).toEqual(['ml-team', 'finance']);
    // One message for both: its footer and its links name both destinations.
    expect(named[0]?.payload).toBe(named[1]?.payload);
    expect(JSON.stringify(named[0]?.payload)).toContain('sent to slack:ml-team, slack:finance');
  });

  it('headlines the money and offers Keep running first, as link buttons to the signed pages', () => {
    const message = only(MESSAGES['idle-warn']).payload as SlackMessage;
    const [header, , actions] = message.blocks;
    expect(header).toMatchObject({ type: 'header', text: { text: expect.stringMatching(/\$78\.72\/day$/) } });
    if (actions?.type !== 'actions') throw new Error('no actions block under the lead');
    expect(actions.elements.map((button) => button.text.text)).toEqual([
      'Keep running 2 h',
      'Keep running 8 h',
      'Keep running until tomorrow 09:00 CET',
      'Silence for 4 h',
      'Silence for 24 h',
    ]);
    expect(actions.elements[0]?.style).toBe('primary');
    for (const button of actions.elements) {
      expect(button.url).toMatch(
        /^https:\/\/podwarden\.example\.com\/(pods|alerts)\/team\/[^/]+\/(keep-running|silence)\?t=/,
      );
    }
    // A resolved notice offers nothing to do.
    expect((only(MESSAGES['idle-resolved']).payload as SlackMessage).blocks.some((b) => b.type === 'actions')).toBe(
      false,
    );
  });
});
