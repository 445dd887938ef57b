import { describe, expect, it } from 'vitest';
import type { NotifyAlert } from '../../src/alerts/alert.js';
import { slackRenderer } from '../../src/channels/slack.js';
import { emailLinks } from '../../src/links/email-links.js';
import { type SlackMessage, slackDigest, slackView } from '../../src/messages/slack.js';
import { fitLines, SLACK_LIMITS, shorten } from '../../src/messages/slack-text.js';
import type { EmailView } from '../../src/messages/view.js';
import { ALERTS, DIGEST, firstNotification, NOW } from '../messages/fixtures.js';
import { expectWithinSlackLimits, textsOf } from './slack-payload-limits.js';

/**
 * Slack refuses a message past its limits (`invalid_blocks`), so every message keeps within them:
 * groups large enough to pass each one, summarised with a count and a link to the status page,
 * and text shortened at a word boundary, never in the middle of a word.
 */
const STATUS = 'https://podwarden.example.com/';
const LONG_NAME = 'team-research-llama-70b-finetune-sweep-with-a-pod-name-as-long-as-people-really-write-them';

/** A shortened text is a prefix of the original up to a word's end, then "…". */
function expectCutAtWord(shortened: string, original: string): void {
  if (!shortened.endsWith('…')) {
    expect(shortened).toBe(original);
    return;
  }
  const kept = shortened.slice(0, -1);
  expect(original.startsWith(kept), `"${kept}" is not where "${original}" starts`).toBe(true);
  expect(original.charAt(kept.length), `cut inside a word after "${kept.slice(-20)}"`).toMatch(/[\s,;:·—–-]/);
}

function idleAlert(index: number, name: string): NotifyAlert {
  const base = ALERTS['idle-warn'] as NotifyAlert;
  const podId = `pod${String(index).padStart(4, '0')}`;
  return {
    ...base,
    id: 1000 + index,
    key: `idle:team:${podId}:warn`,
    labels: { ...base.labels, pod_id: podId, pod_name: `${name}-${index}` },
    details: { ...base.details, podId, podName: `${name}-${index}` },
  };
}

const links = emailLinks({
  publicUrl: 'https://podwarden.example.com',
  secret: Buffer.from('limits-link-secret-0001'),
  expiryMs: 24 * 3_600_000,
  timeZone: 'UTC',
  episodeOf: () => NOW - 30 * 60_000,
});
const renderer = slackRenderer(
  {
    destinations: [{ name: 'ml', webhookUrl: 'https://hooks.slack.com/services/T/B/x' }],
    timeoutMs: 10_000,
    giveUpAfterMs: 86_400_000,
  },
  { links, publicUrl: 'https://podwarden.example.com' },
);

describe("Slack's limits", () => {
  it('a group of 240 idle Pods with long names: 50 blocks at most, the rest summarised with a link to the status page', () => {
    const alerts = Array.from({ length: 240 }, (_, index) => idleAlert(index, LONG_NAME));
    const notification = { ...firstNotification(alerts[0] as NotifyAlert), firing: alerts, fresh: alerts };
    const message = renderer.notification(notification)[0]?.payload as SlackMessage;
    expectWithinSlackLimits(message);
    expect(message.blocks.length).toBeGreaterThan(SLACK_LIMITS.blocks - 10);
    const texts = textsOf(message);
    // The alerts not in detail are listed by headline, as many as fit, then counted.
    const summary = texts.find((text) => /^\*\d+ more\*/.test(text));
    if (!summary) throw new Error(`no summary among:\n${texts.join('\n')}`);
    expect(summary).toMatch(/\n…and \d+ more alerts: <https:\/\/podwarden\.example\.com\/\|see the status page>$/);
    expect(summary.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    const [, listed] = /^\*(\d+) more\*/.exec(summary) ?? [];
    const shown = summary.split('\n').filter((line) => line.startsWith('• ')).length;
    const [, counted] = /…and (\d+) more alerts/.exec(summary) ?? [];
    expect(shown + Number(counted)).toBe(Number(listed));
    // Every alert is told somewhere: in detail, by headline or in the count, and past the 200 an
    // email lists, in the email's closing count.
    const detailed = texts.filter((text) => /^\*Pod \S+ will be stopped/.test(text)).length;
    expect(detailed).toBeGreaterThan(0);
    expect(detailed + Number(listed)).toBe(200);
    expect(texts).toContain("… and 40 more: see /api/status or podwarden's metrics.");
  });

  it('the header, buttons and fields are shortened at a word boundary', () => {
    const alerts = [0, 1, 2].map((index) => ({
      ...idleAlert(index, `${LONG_NAME} ${'and even longer words here '.repeat(3)}`.replace(/ /g, '-')),
      rule: 'idle',
    }));
    // Different identities: each silence button names its alert, past 75 characters.
    const notification = { ...firstNotification(alerts[0] as NotifyAlert), firing: alerts, fresh: alerts };
    const message = renderer.notification(notification)[0]?.payload as SlackMessage;
    expectWithinSlackLimits(message);
    const buttons = message.blocks.flatMap((block) => (block.type === 'actions' ? block.elements : []));
    const cut = buttons.filter((button) => button.text.text.endsWith('…'));
    expect(cut.length).toBeGreaterThan(0);
    for (const button of cut) expect(button.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.buttonText);

    const heading = `Pod ${'sdxl lora sweep '.repeat(12)}idle for a very long time`;
    const view: EmailView = {
      subject: heading,
      tone: 'warning',
      heading,
      lead: ['word '.repeat(1000).trim()],
      blocks: [
        { type: 'table', rows: [['Why', `${'a reason given at length '.repeat(120)}end`]] },
        { type: 'list', title: 'Pods', items: Array.from({ length: 500 }, (_, i) => `Pod number ${i} idle`) },
        {
          type: 'table',
          title: 'Many rows',
          rows: Array.from({ length: 30 }, (_, i): [string, string] => [`row ${i}`, 'value '.repeat(30)]),
        },
      ],
      sections: [],
      actions: [{ label: `Keep ${'really long pod name '.repeat(6)}running 2 h`, href: 'https://x.example/k?t=1' }],
      footer: ['podwarden'],
    };
    const big = slackView(view, { statusUrl: STATUS });
    expectWithinSlackLimits(big);
    const [header, lead, actions, field, list, many] = big.blocks;
    if (header?.type !== 'header' || lead?.type !== 'section' || actions?.type !== 'actions') {
      throw new Error('unexpected layout');
    }
    expectCutAtWord(header.text.text, heading);
    expect(header.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    expectCutAtWord(lead.text?.text ?? '', view.lead[0] as string);
    expectCutAtWord(actions.elements[0]?.text.text ?? '', view.actions[0]?.label as string);
    if (field?.type !== 'section' || list?.type !== 'section' || many?.type !== 'section') throw new Error('layout');
    const fieldText = field.fields?.[0]?.text ?? '';
    expect(fieldText.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
    expectCutAtWord(fieldText, `*Why*\n${'a reason given at length '.repeat(120)}end`);
    expect(list.text?.text).toMatch(/\n…and \d+ more: <https:\/\/podwarden\.example\.com\/\|see the status page>$/);
    // More rows than a section has fields: one line each, as many as fit.
    expect(many.fields).toBeUndefined();
    expect(many.text?.text).toMatch(/^\*Many rows\*\n\*row 0\*: value/);
  });

  it('a digest of 300 idle Pods stays within the limits and counts what it leaves out', () => {
    const bob = DIGEST.open[1] as NotifyAlert;
    const open = Array.from({ length: 300 }, (_, index) => {
      const podId = `nb${index}`;
      return {
        ...bob,
        key: `idle:team:${podId}`,
        details: { ...bob.details, podId, podName: `${LONG_NAME}-${index}` },
      };
    });
    const message = slackDigest({ ...DIGEST, open }, undefined, { statusUrl: STATUS });
    expectWithinSlackLimits(message);
    expect(textsOf(message).join('\n')).toMatch(
      /…and \d+ more: <https:\/\/podwarden\.example\.com\/\|see the status page>/,
    );
  });

  it('shortens only between words', () => {
    expect(shorten('short', 10)).toBe('short');
    expect(shorten('the quick brown fox', 12)).toBe('the quick…');
    expect(shorten('the quick brown fox', 10)).toBe('the quick…');
    expect(shorten('the quick, brown fox', 12)).toBe('the quick…');
    expect(shorten('supercalifragilistic', 10)).toHaveLength(10);
    for (let max = 5; max < 60; max++) {
      const original = 'Pod sdxl-lora-sweep idle 1h 2m at $3.28/h ($78.72/day), stop planned';
      const cut = shorten(original, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expectCutAtWord(cut, original);
    }
    expect(fitLines('*t*', ['a', 'b', 'c'], 100, (n) => `+${n}`)).toBe('*t*\na\nb\nc');
    expect(fitLines('*t*', ['aaaa', 'bbbb', 'cccc'], 16, (n) => `+${n}`)).toBe('*t*\naaaa\nbbbb\n+1');
    expect(fitLines('*t*', ['aaaa', 'bbbb', 'cccc'], 15, (n) => `+${n}`)).toBe('*t*\naaaa\n+2');
  });
});
