import type { Config } from '../config/schema.js';
import { CHANNEL_CONFIGS } from '../config/sections/channels.js';
import { outboxCountsByAccount } from '../db/notifications.js';
import { counter, gauge } from './account-series.js';
import { type MetricsContext, metricAccounts } from './source.js';

/** The message channels besides email (whose figures are podwarden_emails_*): chat and webhooks. */
const MESSAGE_CHANNELS = ['slack', 'webhook'] as const;

function configuredChannels(config: Config): string[] {
  return CHANNEL_CONFIGS.filter(
    (channel) => (MESSAGE_CHANNELS as readonly string[]).includes(channel.name) && channel.configured(config),
  ).map((channel) => channel.name);
}

/**
 * What became of the Slack and webhook messages, per configured channel, counted from the outbox
 * as the emails are, so the totals survive restarts and retention; set on the evaluation tick.
 */
export function registerNotificationMetrics({ registry, source, config, refreshOn }: MetricsContext): void {
  const accounts = metricAccounts(config);
  const channels = configuredChannels(config);
  const messages = counter(registry, {
    name: 'podwarden_notifications_total',
    help: 'Slack and webhook messages by channel, account (all when a message spans accounts) and outcome: sent (the receiver took it) or abandoned (refused for good, or not delivered before the give-up time).',
    labelNames: ['channel', 'account', 'outcome'],
  });
  const queued = gauge(registry, {
    name: 'podwarden_notifications_queued',
    help: 'Slack and webhook messages in the outbox waiting for their first attempt or a retry, by channel and account.',
    labelNames: ['channel', 'account'],
  });
  refreshOn(['tick'], async () => {
    messages.reset();
    queued.reset();
    for (const channel of channels) {
      // Every account's series at 0 first, then what the outbox holds.
      const zeros = accounts.map((account) => ({ account, sent: 0, abandoned: 0, pending: 0 }));
      for (const { account, sent, abandoned, pending } of [
        ...zeros,
        ...(await outboxCountsByAccount(source.db, channel)),
      ]) {
        messages.inc({ channel, account, outcome: 'sent' }, sent);
        messages.inc({ channel, account, outcome: 'abandoned' }, abandoned);
        queued.set({ channel, account }, pending);
      }
    }
  });
}
