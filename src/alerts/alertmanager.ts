import type { EvaluationContext } from '../tick/context.js';
import { deliverToAlertmanager, queueForAlertmanager } from './alertmanager-outbox.js';

/**
 * The alert tick's Alertmanager step, after the alert state is recorded: the outbox learns what
 * fires and what resolved, then every due row is posted. It never throws: an Alertmanager that
 * is down is the outbox's business (backoff, metrics, logs), not a reason to skip the email.
 */
export async function alertmanagerStep(ctx: EvaluationContext): Promise<void> {
  try {
    queueForAlertmanager(ctx.db, ctx.config, ctx.now);
    if (ctx.config.alerts.alertmanager === undefined) return;
    await deliverToAlertmanager({
      db: ctx.db,
      clock: ctx.clock,
      config: ctx.config,
      log: ctx.log.child({ output: 'alertmanager' }),
      events: ctx.events,
      inflight: ctx.inflight,
      signal: ctx.signal,
      commandLine: ctx.commandLine,
    });
  } catch (error) {
    ctx.log.error({ err: error }, 'Alertmanager step failed; its rows stay queued for the next tick');
  }
}
