import { z } from 'zod';
import { alertmanagerChannelConfig } from './alertmanager.js';
import { emailChannelConfig } from './email.js';
import { slackChannelConfig } from './slack.js';
import { webhookChannelConfig } from './webhook.js';

/**
 * Every notification channel as its config section declares it, in a default route's order;
 * src/channels/index.ts holds a channel for each (its type requires one per name).
 */
export const CHANNEL_CONFIGS = [
  emailChannelConfig,
  alertmanagerChannelConfig,
  slackChannelConfig,
  webhookChannelConfig,
] as const;

export type AlertChannel = (typeof CHANNEL_CONFIGS)[number]['name'];
export const ALERT_CHANNELS: readonly AlertChannel[] = CHANNEL_CONFIGS.map((channel) => channel.name);

/** One channel's name in the configuration (`alerts.route`). */
export const channelName = z.enum(ALERT_CHANNELS as [AlertChannel, ...AlertChannel[]]);
