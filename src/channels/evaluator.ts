import { deliverDue } from '../alerts/deliver.js';
import { queueDigests } from '../alerts/digest.js';
import { notify } from '../alerts/notify.js';
import type { MessageRenderer } from '../alerts/outbox.js';
import { alertSettings } from '../alerts/settings.js';
import { recordFindings } from '../alerts/state.js';
import { hasDueRows } from '../db/channel-outbox.js';
import { heldDecisions } from '../links/decisions.js';
import type { Channel } from './channel.js';
import type { NotificationContext } from './context.js';
import { CHANNELS } from './index.js';

/**
 * Last in the evaluation tick, the alert pipeline's one entry point: the tick's findings become
 * alert state, the shared stages queue what each channel must be told, and each channel delivers
 * what is due. A channel that is not configured keeps its rows in the outbox, unsent.
 */
export async function runNotifications(
  ctx: NotificationContext,
  channels: readonly Channel[] = CHANNELS,
): Promise<void> {
  const settings = alertSettings(ctx.config);
  if (ctx.unjudged.length > 0) {
    ctx.log.debug({ unjudged: ctx.unjudged }, 'not judged this tick: their alerts keep their state');
  }
  const transitions = await recordFindings(ctx.db, ctx.findings, ctx.now, settings, ctx.unjudged);
  for (const transition of transitions) ctx.events.emit('alert:state', transition);
  const renderers: MessageRenderer[] = [];
  for (const channel of channels) if (channel.renderer) renderers.push(await channel.renderer(ctx));
  const queued = await notify(ctx.db, settings, ctx.now, renderers);
  for (const renderer of renderers) {
    queued.push(...(await queueDigests(ctx.db, ctx.config, settings, ctx.now, renderer, heldDecisions)));
  }
  for (const channel of channels) {
    try {
      await channel.sync?.(ctx, settings);
    } catch (error) {
      ctx.log.error(
        { err: error, channel: channel.name },
        'queueing failed; its rows stay as they are for the next tick',
      );
    }
  }
  for (const channel of channels) await deliverChannel(ctx, channel, queued);
}

/**
 * One pass of a channel over what is due. It never throws: a channel that is down is the
 * outbox's business (backoff, metrics, logs), not a reason to skip the next one.
 */
async function deliverChannel(
  ctx: NotificationContext,
  channel: Channel,
  queued: ReadonlyArray<{ channel: string; payload: unknown }>,
): Promise<void> {
  // Most ticks have nothing due: no connection is opened.
  if (!(await hasDueRows(ctx.db, channel.name, ctx.now))) return;
  const deliverer = captured(ctx, channel, channel.deliverer(ctx));
  if (deliverer === undefined) {
    for (const row of queued) {
      if (row.channel !== channel.name) continue;
      const { subject, to } = row.payload as { subject?: string; to?: string[] };
      const why = channel.notConfigured ?? `no ${channel.name} configured`;
      ctx.log.info({ subject, to }, `notification kept in the outbox, not sent: ${why}`);
    }
    return;
  }
  try {
    await deliverDue(ctx, deliverer);
  } catch (error) {
    ctx.log.error({ err: error, channel: channel.name }, 'delivery failed; its rows stay queued for the next tick');
  } finally {
    deliverer.close?.();
  }
}

/**
 * A captured channel's deliverer takes every attempt as delivered without making it: its rows,
 * rendered as in production, are what it would have received (a stop still waits for its
 * warning's row to be delivered, as it would live).
 */
function captured(
  ctx: NotificationContext,
  channel: Channel,
  deliverer: ReturnType<Channel['deliverer']>,
): ReturnType<Channel['deliverer']> {
  if (deliverer === undefined || !ctx.captured?.has(channel.name)) return deliverer;
  deliverer.close?.();
  return {
    ...deliverer,
    close: undefined,
    deliver: async () => ({ kind: 'delivered', response: 'captured: not sent' }),
  };
}
