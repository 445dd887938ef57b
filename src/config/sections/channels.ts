import { z } from 'zod';
import { alertmanagerChannelConfig } from './alertmanager.js';
import { emailChannelConfig } from './email.js';

/**
 * Every notification channel as the configuration knows it, each declared by its own section:
 * its name (what `alerts.route` accepts), whether a configuration sets it up, and whether alerts
 * fall back to it when no channel is. Listed in the order of a rule's default route.
 * src/channels/index.ts holds a channel for each (its type requires one per name).
 */
export const CHANNEL_CONFIGS = [emailChannelConfig, alertmanagerChannelConfig] as const;

export type AlertChannel = (typeof CHANNEL_CONFIGS)[number]['name'];
export const ALERT_CHANNELS: readonly AlertChannel[] = CHANNEL_CONFIGS.map((channel) => channel.name);

/** One channel's name in the configuration (`alerts.route`). */
export const channelName = z.enum(ALERT_CHANNELS as [AlertChannel, ...AlertChannel[]]);
