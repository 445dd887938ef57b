import type { Deliverer } from '../alerts/deliver.js';
import type { MessageRenderer } from '../alerts/outbox.js';
import type { AlertSettings } from '../alerts/settings.js';
import type { AlertChannel } from '../config/sections/channels.js';
import type { NotificationContext } from './context.js';

export type { Outcome } from '../alerts/deliver.js';

/**
 * A notification channel: one module behind this interface. The shared stages do the rest:
 * silences, inhibition, grouping, dedupe and repeat against its notification log
 * (alerts/pipeline.ts), its durable outbox, leases, retry with backoff and give-up
 * (alerts/deliver.ts). It takes grouped messages (`renderer`, email) or keeps alert episodes in
 * sync with a receiver that groups and dedupes itself (`sync`, Alertmanager).
 */
export interface Channel {
  name: AlertChannel;
  /** How this channel renders grouped messages, if it takes them. */
  renderer?(ctx: NotificationContext): Promise<MessageRenderer>;
  /** Brings the channel's rows in line with the alert state, if it keeps episodes in sync. */
  sync?(ctx: NotificationContext, settings: AlertSettings): Promise<void>;
  /**
   * How the delivery stage drives it for one pass, or undefined when it is not configured to
   * deliver (its rows wait in the outbox). `close` ends what the pass opened (a connection).
   */
  deliverer(ctx: NotificationContext): (Deliverer & { close?(): void }) | undefined;
  /** What the log says of a message kept unsent because the channel is not configured. */
  notConfigured?: string;
}
