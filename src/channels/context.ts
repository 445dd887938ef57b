import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { EventSink } from '../events.js';
import type { Logger } from '../log.js';
import type { CommandLine } from '../messages/commands.js';
import type { Finding } from '../rules/finding.js';
import type { Unjudged } from '../rules/unjudged.js';
import type { InflightCounter } from '../scheduler/inflight.js';
import type { Mailer } from './email-smtp.js';

/** What the alert pipeline and its channels emit, for tests and metrics. */
export interface NotificationEvents extends Record<string, unknown> {
  'alert:state': { at: number; key: string; rule: string; state: 'pending' | 'firing' | 'resolved' };
  'alert:sent': { at: number; messageId: string; to: string[]; subject: string };
  /** A batch of `alerts` alerts of `account` reached an Alertmanager, or did not (they stay queued). */
  'alertmanager:sent': { at: number; alertmanager: string; account: string; alerts: number };
  'alertmanager:failed': NotificationEvents['alertmanager:sent'];
}

/**
 * What the alert pipeline gets from the tick: the tick's `now`, its findings and what it could not
 * judge, and the store the stages and the outbox write to.
 */
export interface NotificationContext {
  config: Config;
  db: Database;
  clock: Clock;
  now: number;
  log: Logger;
  signal: AbortSignal;
  events: EventSink<NotificationEvents>;
  /** How the commands quoted in messages run this podwarden (program, `--config`). */
  commandLine: CommandLine;
  /** Counts real I/O (SMTP sends) so a virtual-time loop does not move time under it. */
  inflight?: InflightCounter;
  /**
   * The mailer the outbox sends through, kept open by its owner (a replay's); by default each
   * tick with mail due opens one for the email section and closes it after.
   */
  mailer?: Mailer;
  /**
   * Channels whose deliveries are recorded as taken without being made (a backtest: nothing
   * leaves the machine, and the outbox shows what each channel would have received).
   */
  captured?: ReadonlySet<string>;
  /** This tick's findings; a key absent this tick resolves. */
  findings: readonly Finding[];
  /** What the rules could not judge this tick: an open alert matched here keeps its state. */
  unjudged: readonly Unjudged[];
}
