import type { AlertChannel } from '../config/sections/channels.js';
import { alertmanagerChannel } from './alertmanager.js';
import type { Channel } from './channel.js';
import { emailChannel } from './email.js';
import { slackChannel } from './slack.js';
import { webhookChannel } from './webhook.js';

/**
 * The channel of each name the configuration knows (config/sections/channels.ts): exactly one
 * each, or this does not compile. In the order a tick delivers for them: Alertmanager, Slack and
 * webhooks first, their POSTs are short, while an SMTP server that is down holds its pass for a connection timeout.
 */
const BY_NAME = {
  alertmanager: alertmanagerChannel,
  slack: slackChannel,
  webhook: webhookChannel,
  email: emailChannel,
} satisfies Record<AlertChannel, Channel>;

/** Every notification channel, in delivery order: the one list that names them. */
export const CHANNELS: readonly Channel[] = Object.values(BY_NAME);
