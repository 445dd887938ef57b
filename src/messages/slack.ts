import type { DigestNotice, FlappingNotice } from '../alerts/notices.js';
import { announcedAlerts } from '../alerts/outbox.js';
import type { Notification } from '../alerts/pipeline.js';
import { formatPercent, formatSparkline, formatTextBar, formatUsd } from '../format.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { costPerDayOf, digestView } from './digest.js';
import { emailView } from './email.js';
import { flappingView } from './flapping.js';
import { podOf } from './same-pod.js';
import { escapeMrkdwn, fitLines, mrkdwnLink, SLACK_LIMITS, shorten } from './slack-text.js';
import type { Action, Block, EmailView } from './view.js';

/**
 * Slack messages (Block Kit) built from the same view models as the emails, so both say the same
 * thing: a header with the money, the lead, the actions as link buttons to the same signed pages,
 * the facts, then the small print. Everything is kept within Slack's limits (slack-text.ts).
 */

type PlainText = { type: 'plain_text'; text: string; emoji: boolean };
type Mrkdwn = { type: 'mrkdwn'; text: string };

/** A link button: it opens the URL in the browser; Slack itself acts on nothing. */
export interface SlackButton {
  type: 'button';
  text: PlainText;
  url: string;
  action_id: string;
  style?: 'primary';
}

export type SlackBlock =
  | { type: 'header'; text: PlainText }
  | { type: 'section'; text?: Mrkdwn; fields?: Mrkdwn[] }
  | { type: 'actions'; elements: SlackButton[] }
  | { type: 'context'; elements: Mrkdwn[] }
  | { type: 'divider' };

/** What an incoming webhook takes: `text` is the fallback notifications and old clients show. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
  /** Slack would fetch the links it unfurls: a message's links are for people to open. */
  unfurl_links: false;
  unfurl_media: false;
}

export interface SlackOptions {
  /** The status page (`http.publicUrl`), where "…and N more" points; without it, the words alone. */
  statusUrl?: string;
  /** A figure of money for a heading that has none ("$78.72/day"). */
  money?: string;
}

export interface SlackNotificationOptions extends SlackOptions {
  /** Signed links (keep running, silence), as link buttons. */
  actions?: Action[];
  commandLine?: CommandLine;
}

/** One group's notification for Slack, worded as its email. */
export function slackNotification(notification: Notification, options: SlackNotificationOptions = {}): SlackMessage {
  const view = emailView(notification, {
    actions: options.actions,
    commandLine: options.commandLine,
    medium: 'message',
  });
  return slackView(view, { money: moneyOf(notification), ...options });
}

export function slackFlappingNotice(
  notice: FlappingNotice,
  commandLine: CommandLine = BARE_COMMAND_LINE,
  options: SlackOptions = {},
): SlackMessage {
  return slackView(flappingView(notice, 'UTC', commandLine), options);
}

export function slackDigest(
  notice: DigestNotice,
  commandLine: CommandLine = BARE_COMMAND_LINE,
  options: SlackOptions = {},
): SlackMessage {
  // The digest's subject says what is at stake and what was saved: the header a channel sees.
  const view = digestView(notice, commandLine);
  return slackView({ ...view, heading: view.subject }, options);
}

/**
 * What the announced firing alerts cost a day while they last, each Pod once (its notice and its
 * warning are one cost); nothing for a resolved notice.
 */
function moneyOf(notification: Notification): string | undefined {
  if (notification.reason === 'all_resolved' || notification.reason === 'new_resolved') return undefined;
  const perThing = new Map<string, number>();
  for (const alert of announcedAlerts(notification)) {
    const cost = costPerDayOf(alert);
    if (cost !== null) perThing.set(podOf(alert) ?? alert.key, cost);
  }
  const total = [...perThing.values()].reduce((sum, cost) => sum + cost, 0);
  return perThing.size === 0 ? undefined : `${formatUsd(total)}/day`;
}

const text = (value: string): Mrkdwn => ({ type: 'mrkdwn', text: value });
const section = (value: string): SlackBlock => ({
  type: 'section',
  text: text(shorten(value, SLACK_LIMITS.sectionText)),
});
const DIVIDER: SlackBlock = { type: 'divider' };

/** The line that counts what a list leaves out, linking to the status page when there is one. */
type More = (count: number, what?: string) => string;

/** An email's view model as a Slack message within Slack's limits. */
export function slackView(view: EmailView, options: SlackOptions = {}): SlackMessage {
  const more: More = (count, what = '') =>
    `…and ${count} more${what}${options.statusUrl ? `: ${mrkdwnLink(options.statusUrl, 'see the status page')}` : ''}`;
  const heading = options.money && !view.heading.includes('$') ? `${view.heading} · ${options.money}` : view.heading;
  const top: SlackBlock[] = [{ type: 'header', text: plain(shorten(heading, SLACK_LIMITS.headerText)) }];
  if (view.lead.length > 0) top.push(section(escapeMrkdwn(view.lead.join(' '))));
  top.push(...actionBlocks(view.actions));
  top.push(...view.blocks.flatMap((block) => blocksOf(block, more)));
  const footer: SlackBlock = {
    type: 'context',
    elements: view.footer.slice(0, SLACK_LIMITS.contextElements).map((line) => text(shorten(escapeMrkdwn(line), 300))),
  };
  const sections = sectionBlocks(view.sections, SLACK_LIMITS.blocks - top.length - 1, more);
  return {
    text: shorten(escapeMrkdwn([heading, ...view.lead].join('\n')), SLACK_LIMITS.sectionText),
    blocks: [...top, ...sections, footer].slice(0, SLACK_LIMITS.blocks),
    unfurl_links: false,
    unfurl_media: false,
  };
}

type Section = EmailView['sections'][number];

/**
 * A message's further sections in at most `room` blocks: the alerts in detail while they fit,
 * then one list of the others by headline (joined by the email's own list of further alerts,
 * "180 more", so there is one), then the email's tail.
 */
function sectionBlocks(sections: readonly Section[], room: number, more: More): SlackBlock[] {
  const partOf = (part: Section): SlackBlock[] => [
    DIVIDER,
    section(`*${escapeMrkdwn(part.headline)}*${part.lead.length > 0 ? `\n${escapeMrkdwn(part.lead.join(' '))}` : ''}`),
    ...part.blocks.flatMap((block) => blocksOf(block, more)),
  ];
  // An alert's section has a lead; the email's tail (lists of further alerts) has none.
  const alerts = sections.filter((part) => part.lead.length > 0);
  const tail = sections.filter((part) => part.lead.length === 0);
  // Kept free: the tail, and a divider and a list for the alerts that do not fit.
  let free = room - tail.flatMap(partOf).length - (alerts.length > 0 ? 2 : 0);
  const detailed: SlackBlock[] = [];
  let shown = 0;
  for (const part of alerts) {
    const blocks = partOf(part);
    if (blocks.length > free) break;
    detailed.push(...blocks);
    free -= blocks.length;
    shown++;
  }
  const [first, ...others] = tail;
  const [tailList, ...tailRest] = first?.blocks ?? [];
  const merged = shown < alerts.length && tailList?.type === 'list' && /^\d+ more$/.test(tailList.title);
  const rest = [...alerts.slice(shown).map((part) => part.headline), ...(merged ? tailList.items : [])];
  const lines = rest.map((headline) => `• ${escapeMrkdwn(headline)}`);
  const restBlocks: SlackBlock[] =
    rest.length === 0
      ? []
      : [
          DIVIDER,
          {
            type: 'section',
            text: text(fitLines(`*${rest.length} more*`, lines, SLACK_LIMITS.sectionText, (n) => more(n, ' alerts'))),
          },
        ];
  const tailParts = merged && first ? [{ ...first, blocks: tailRest }, ...others] : tail;
  return [...detailed, ...restBlocks, ...tailParts.filter((part) => part.blocks.length > 0).flatMap(partOf)];
}

const plain = (value: string): PlainText => ({ type: 'plain_text', text: value, emoji: false });

/** The links as buttons, the first one primary (a message's one action comes first). */
function actionBlocks(actions: readonly Action[]): SlackBlock[] {
  const buttons = actions.map(
    (action, index): SlackButton => ({
      type: 'button',
      text: plain(shorten(action.label, SLACK_LIMITS.buttonText)),
      url: action.href,
      action_id: `podwarden-link-${index + 1}`,
      ...(index === 0 ? { style: 'primary' as const } : {}),
    }),
  );
  const blocks: SlackBlock[] = [];
  for (let start = 0; start < buttons.length; start += SLACK_LIMITS.actions) {
    blocks.push({ type: 'actions', elements: buttons.slice(start, start + SLACK_LIMITS.actions) });
  }
  return blocks;
}

function blocksOf(block: Block, more: More): SlackBlock[] {
  const fitted = (title: string, lines: string[]) => [
    { type: 'section' as const, text: text(fitLines(title, lines, SLACK_LIMITS.sectionText, more)) },
  ];
  switch (block.type) {
    case 'bar':
      return [
        section(
          `*${escapeMrkdwn(block.label)}*  \`${formatTextBar(block.ratio, 20)}\` ${formatPercent(block.ratio)}\n${escapeMrkdwn(block.caption)}`,
        ),
      ];
    case 'spark':
      return [
        section(
          `*${escapeMrkdwn(block.label)}*\n\`${formatSparkline(block.values)}\`\n${escapeMrkdwn(`${block.from} … ${block.to} (· = no data)`)}`,
        ),
      ];
    case 'table': {
      const title = block.title ? `*${escapeMrkdwn(block.title)}*` : '';
      if (block.rows.length <= SLACK_LIMITS.fields) {
        const fields = block.rows.map(([label, value]) =>
          text(shorten(`*${escapeMrkdwn(label)}*\n${escapeMrkdwn(value)}`, SLACK_LIMITS.fieldText)),
        );
        return [title === '' ? { type: 'section', fields } : { type: 'section', text: text(title), fields }];
      }
      return fitted(
        title,
        block.rows.map(([label, value]) => `*${escapeMrkdwn(label)}*: ${escapeMrkdwn(value)}`),
      );
    }
    case 'commands':
      return fitted(
        `*${escapeMrkdwn(block.title)}*`,
        block.items.map((item) => `${escapeMrkdwn(item.label)}\n\`\`\`${escapeMrkdwn(item.command)}\`\`\``),
      );
    case 'list':
      return fitted(
        `*${escapeMrkdwn(block.title)}*`,
        block.items.map((item) => `• ${escapeMrkdwn(item)}`),
      );
    case 'note':
      return [section(escapeMrkdwn(block.text))];
  }
}
