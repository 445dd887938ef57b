import type { Config } from '../config/schema.js';
import { hasDueMessages } from '../db/notifications.js';
import { emailLinksFor } from '../links/email-links.js';
import type { Evaluator } from '../tick/context.js';
import { alertmanagerStep } from './alertmanager.js';
import { queueDigests } from './digest.js';
import { smtpMailer } from './email.js';
import { notify } from './notify.js';
import { deliverOutbox } from './outbox.js';
import { alertSettings } from './settings.js';
import { recordFindings } from './state.js';

/** The host part of Message-IDs: the sender's domain, so they are unique to this installation's mail. */
export function messageDomain(config: Config): string {
  return config.email.from?.split('@')[1] ?? 'podwarden.invalid';
}

/**
 * Last in the evaluation tick: the tick's findings become alert state, the pipeline queues what
 * must be said, Alertmanager is told what fires (alertmanager.ts), and the outbox sends what is
 * due. Without an email host, messages are queued (and reported) but not sent.
 */
export const alertsEvaluator: Evaluator = {
  name: 'alerts',
  async evaluate(ctx) {
    const settings = alertSettings(ctx.config);
    if (ctx.unjudged.length > 0) {
      ctx.log.debug({ unjudged: ctx.unjudged }, 'not judged this tick: their alerts keep their state');
    }
    const transitions = recordFindings(ctx.db, ctx.findings, ctx.now, settings, ctx.unjudged);
    for (const transition of transitions) ctx.events.emit('alert:state', transition);
    const links = emailLinksFor(ctx.db, ctx.config, ctx.clock);
    const queued = notify(ctx.db, settings, ctx.now, messageDomain(ctx.config), links, ctx.commandLine);
    queued.push(...queueDigests(ctx.db, ctx.config, settings, ctx.now, messageDomain(ctx.config), ctx.commandLine));
    await alertmanagerStep(ctx);
    if (!ctx.config.email.host) {
      for (const message of queued) {
        ctx.log.info(
          { subject: message.subject, to: message.to },
          'notification kept in the outbox, not sent: no email host configured',
        );
      }
      return;
    }
    // Most ticks have nothing to send: no mailer is made, and the messages are read once, to send them.
    if (!hasDueMessages(ctx.db, ctx.now)) return;
    const mailer = ctx.mailer ?? smtpMailer(ctx.config.email);
    try {
      await deliverOutbox({
        db: ctx.db,
        clock: ctx.clock,
        mailer,
        giveUpAfterMs: ctx.config.email.giveUpAfterMs,
        log: ctx.log,
        events: ctx.events,
        inflight: ctx.inflight,
        signal: ctx.signal,
      });
    } finally {
      if (mailer !== ctx.mailer) mailer.close();
    }
  },
};
