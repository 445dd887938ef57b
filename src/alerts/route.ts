import type { Config } from '../config/schema.js';
import type { AlertChannel } from '../config/sections/alertmanager.js';

/**
 * The channels a rule's alerts go to: its `alerts.route` entry, or else every configured
 * channel: email when it has a host, Alertmanager when it is set, and email when neither is:
 * its messages are kept in the outbox, unsent, and logged, so no announcement is lost.
 */
export function channelsOf(config: Config, rule: string): readonly AlertChannel[] {
  const routed = (config.alerts.route as Partial<Record<string, AlertChannel[]>>)[rule];
  if (routed !== undefined) return routed;
  const configured: AlertChannel[] = [];
  if (config.email.host !== undefined) configured.push('email');
  if (config.alerts.alertmanager !== undefined) configured.push('alertmanager');
  return configured.length > 0 ? configured : ['email'];
}

export function routesTo(config: Config, rule: string, channel: AlertChannel): boolean {
  return channelsOf(config, rule).includes(channel);
}
