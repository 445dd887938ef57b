import type { Config } from '../config/schema.js';
import { type AlertChannel, CHANNEL_CONFIGS } from '../config/sections/channels.js';

/**
 * The channels a rule's alerts go to: its `alerts.route` entry, or else every configured channel
 * (each channel's config section says when it is), and the fallback channel (email) when none
 * is: its messages are kept in the outbox, unsent, and logged, so no announcement is lost.
 */
export function channelsOf(config: Config, rule: string): readonly AlertChannel[] {
  const routed = (config.alerts.route as Partial<Record<string, AlertChannel[]>>)[rule];
  if (routed !== undefined) return routed;
  const configured = CHANNEL_CONFIGS.filter((channel) => channel.configured(config));
  const chosen = configured.length > 0 ? configured : CHANNEL_CONFIGS.filter((channel) => 'fallback' in channel);
  return chosen.map((channel) => channel.name);
}

export function routesTo(config: Config, rule: string, channel: AlertChannel): boolean {
  return channelsOf(config, rule).includes(channel);
}
