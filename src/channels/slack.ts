import type { Deliverer, Outcome, Recorded } from '../alerts/deliver.js';
import type { DigestNotice, FlappingNotice } from '../alerts/notices.js';
import type { MessageRenderer, RenderedPayload } from '../alerts/outbox.js';
import type { Notification } from '../alerts/pipeline.js';
import type { SlackConfig } from '../config/sections/slack.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import { type EmailLinks, emailLinksFor } from '../links/email-links.js';
import type { CommandLine } from '../messages/commands.js';
import { type SlackMessage, slackDigest, slackFlappingNotice, slackNotification } from '../messages/slack.js';
import type { Channel } from './channel.js';
import type { NotificationContext } from './context.js';
import { postToSlack } from './slack-client.js';

/**
 * Slack: grouped messages through incoming webhooks, one per named destination (`slack`). A
 * message goes to the destinations its recipients name, else to the first (the default); each
 * destination has its own outbox row, delivered and retried on its own. The buttons are links to
 * the same signed confirmation pages as the emails': nothing acts until a person confirms there.
 */

/** How long an attempt holds its row beyond the POST's timeout. */
const LEASE_MARGIN_MS = 60_000;

/** How a link records who it went to: a destination, not a person. */
export const slackRecipient = (destination: string) => `slack:${destination}`;

export const slackChannel: Channel = {
  name: 'slack',
  notConfigured: 'no slack.destinations configured',
  renderer: async (ctx) => {
    const section = ctx.config.slack;
    const links = section ? await emailLinksFor(ctx.db, ctx.config, ctx.clock) : undefined;
    return slackRenderer(section, { links, commandLine: ctx.commandLine, publicUrl: ctx.config.http.publicUrl });
  },
  deliverer(ctx) {
    const section = ctx.config.slack;
    return section === undefined ? undefined : slackDeliverer(ctx, section);
  },
};

/**
 * The destinations `recipients` name, else the default. Without a `slack` section: a
 * notification's one row waits unsent (as email's without a host), and the notices every message
 * channel gets (flapping, digest) are not queued at all.
 */
function destinationsOf(section: SlackConfig | undefined, recipients: readonly string[]): string[] | undefined {
  if (section === undefined) return undefined;
  const names = section.destinations.map((destination) => destination.name);
  const named = names.filter((name) => recipients.includes(name));
  return named.length > 0 ? named : names.slice(0, 1);
}

export interface SlackRenderOptions {
  /** Signed links (none without `http.publicUrl`). */
  links?: EmailLinks;
  commandLine?: CommandLine;
  /** `http.publicUrl`: the status page that "…and N more" links to. */
  publicUrl?: string;
}

/** Slack's renderer: a message per destination, the same payload for each. */
export interface SlackRenderer extends MessageRenderer {
  notification(notification: Notification): RenderedPayload[];
  flapping(notice: FlappingNotice): RenderedPayload[];
  digest(notice: DigestNotice): RenderedPayload[];
}

export function slackRenderer(section: SlackConfig | undefined, options: SlackRenderOptions = {}): SlackRenderer {
  const statusUrl = options.publicUrl === undefined ? undefined : `${options.publicUrl.replace(/\/+$/, '')}/`;
  const each = (payload: SlackMessage, targets: readonly string[]) => targets.map((target) => ({ payload, target }));
  return {
    channel: 'slack',
    notification(notification) {
      const targets = destinationsOf(section, notification.receiver);
      // The footer and the links name where the message went: its Slack destinations.
      const told = targets ? { ...notification, receiver: targets.map(slackRecipient) } : notification;
      const actions = options.links?.(told) ?? [];
      const payload = slackNotification(told, { actions, commandLine: options.commandLine, statusUrl });
      return targets ? each(payload, targets) : [{ payload }];
    },
    flapping(notice) {
      const targets = destinationsOf(section, notice.recipients) ?? [];
      const recipients = targets.map(slackRecipient);
      return each(slackFlappingNotice({ ...notice, recipients }, options.commandLine, { statusUrl }), targets);
    },
    digest(notice) {
      const targets = destinationsOf(section, notice.recipients) ?? [];
      const recipients = targets.map(slackRecipient);
      return each(slackDigest({ ...notice, recipients }, options.commandLine, { statusUrl }), targets);
    },
  };
}

/** Posts each destination's rows one by one; see alerts/deliver.ts for what every channel shares. */
export function slackDeliverer(
  ctx: Pick<NotificationContext, 'clock' | 'log' | 'signal'>,
  section: SlackConfig,
): Deliverer {
  const log = ctx.log.child({ output: 'slack' });
  const urls = new Map(section.destinations.map((destination) => [destination.name, destination.webhookUrl]));
  return {
    channel: 'slack',
    targets: [...urls.keys()],
    batchSize: 1,
    leaseMs: section.timeoutMs + LEASE_MARGIN_MS,
    inOrder: false,
    giveUpAfterMs: section.giveUpAfterMs,
    undeliverable: (row) =>
      urls.has(row.target)
        ? undefined
        : `no Slack destination named "${row.target}" in slack.destinations (removed since it was queued?)`,
    // batchSize 1: every attempt and record has exactly one row.
    async deliver([row], target): Promise<Outcome> {
      const url = urls.get(target) as string;
      return postToSlack(url, (row as OutboxRow).payload, {
        timeoutMs: section.timeoutMs,
        now: () => ctx.clock.now(),
        signal: ctx.signal,
      });
    },
    recorded([first], outcome: Recorded, _at, destination) {
      const row = first as OutboxRow;
      const fields = { destination, reason: row.reason, groupKey: row.groupKey, attempts: row.attempts + 1 };
      switch (outcome.kind) {
        case 'delivered':
          log.info(fields, 'Slack message delivered');
          return;
        case 'retry':
          log.warn({ ...fields, err: outcome.error }, 'Slack message not delivered; will retry');
          return;
        default:
          log.error({ ...fields, err: outcome.error }, 'Slack message abandoned');
      }
    },
  };
}
