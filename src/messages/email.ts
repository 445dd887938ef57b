import type { NotifyAlert } from '../alerts/alert.js';
import { describeReason } from '../alerts/dedupe.js';
import type { Notification } from '../alerts/pipeline.js';
import { formatDateTime, formatElapsed } from '../format.js';
import { ALL_ACCOUNTS } from '../rules/budget-status.js';
import { alertView } from './alert-view.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { renderHtml } from './html.js';
import { byPod, mergeViews } from './same-pod.js';
import { renderText } from './text.js';
import type { Action, AlertData, AlertView, Block, EmailView, Medium, RenderContext } from './view.js';

/** The email of one notification: subject, text and HTML from one view model. */

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

export interface RenderOptions {
  /** Signed links (keep running, silence…), rendered as buttons; none by default. */
  actions?: Action[];
  /** The zone for times of alerts that do not name their own; UTC by default. */
  timeZone?: string;
  /** How the quoted commands run this podwarden; bare `podwarden` by default. */
  commandLine?: CommandLine;
  /** What the message calls itself in its text: `mail` (email, the default) or `message` (chat). */
  medium?: Medium;
}

export const SUBJECT_MAX = 80;

/** "[prod] Pod … idle": two accounts never send the same subject; cut at SUBJECT_MAX for a phone. */
export function accountSubject(accounts: readonly string[], text: string): string {
  const names = [...new Set(accounts)].map((account) => (account === ALL_ACCOUNTS ? 'all accounts' : account));
  const subject = names.length === 0 ? text : `[${names.join(', ')}] ${text}`;
  return subject.length <= SUBJECT_MAX ? subject : `${subject.slice(0, SUBJECT_MAX - 1).trimEnd()}…`;
}

const SEVERITY_ORDER = ['critical', 'warning', 'info'];

/** The most severe first, then the newest: the order a message and its links follow. */
export function bySeverity(a: NotifyAlert, b: NotifyAlert): number {
  return SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || b.firedAt - a.firedAt;
}

/** A message of hundreds of alerts stays small: figures for the first, a line each, then a count. */
const DETAILED = 20;
const LISTED = 200;

export function renderMessage(notification: Notification, options: RenderOptions = {}): RenderedMessage {
  return renderView(emailView(notification, options));
}

/** A view model as a message: its subject, the plain-text part and the HTML part. */
export function renderView(view: EmailView): RenderedMessage {
  return { subject: view.subject, text: renderText(view), html: renderHtml(view) };
}

export function emailView(notification: Notification, options: RenderOptions = {}): EmailView {
  const ctx: RenderContext = {
    now: notification.now,
    timeZone: options.timeZone ?? 'UTC',
    links: (options.actions?.length ?? 0) > 0,
    commandLine: options.commandLine ?? BARE_COMMAND_LINE,
    medium: options.medium ?? 'mail',
  };
  const resolvedReason = notification.reason === 'all_resolved' || notification.reason === 'new_resolved';
  const announced = [
    ...(resolvedReason
      ? notification.resolved
      : notification.reason === 'repeat_elapsed'
        ? notification.firing
        : notification.fresh),
  ].sort(bySeverity);
  const announcedIds = new Set(announced.map((alert) => alert.id));
  const others = notification.firing.filter((alert) => !announcedIds.has(alert.id)).sort(bySeverity);
  const detailed = announced.slice(0, DETAILED);
  // A resolved notice lists what ended, each on its own; firing alerts about one Pod read as one.
  const views = resolvedReason
    ? detailed.map((alert) => resolvedView(alert, ctx))
    : byPod(detailed).map(([top, ...others]) =>
        mergeViews(
          alertView(top as NotifyAlert, ctx),
          others.map((alert) => alertView(alert, ctx)),
        ),
      );
  const folded = detailed.length - views.length;
  const prefix = resolvedReason ? '' : notification.reason === 'repeat_elapsed' ? 'Still: ' : '';
  const [top] = views;
  const accounts = [...new Set(announced.map((alert) => alert.account))];
  const footer = [
    `podwarden · ${describeReason(notification.reason)} · ${formatDateTime(notification.now, ctx.timeZone)}`,
    `Account ${accounts.join(', ')} · sent to ${notification.receiver.join(', ')}`,
  ];
  const common = { sections: [], actions: options.actions ?? [], footer };
  if (!top) {
    return {
      subject: 'podwarden: nothing to report',
      tone: 'info',
      heading: 'Nothing to report',
      lead: [],
      blocks: [],
      ...common,
    };
  }
  const headline = (alert: NotifyAlert) => alertView(alert, ctx).headline;
  const list = (title: string, items: string[]): Block[] => (items.length > 0 ? [{ type: 'list', title, items }] : []);
  const listed = announced.slice(DETAILED, LISTED).map(headline);
  const endedMeanwhile = resolvedReason ? [] : [...notification.resolved].sort(bySeverity);
  const tail = list(`${listed.length} more`, listed);
  if (announced.length > LISTED)
    tail.push({
      type: 'note',
      text: `… and ${announced.length - LISTED} more: see /api/status or podwarden's metrics.`,
    });
  tail.push(
    ...list(
      `Resolved since the last message (${endedMeanwhile.length})`,
      endedMeanwhile.slice(0, LISTED).map((alert) => alertView(alert, ctx).title),
    ),
    ...list(`Still firing (${others.length})`, others.slice(0, LISTED).map(headline)),
  );
  if (views.length === 1 && tail.length === 0) {
    return {
      subject: accountSubject(accounts, `${prefix}${top.headline}`),
      tone: top.tone,
      heading: `${prefix}${top.headline}`,
      lead: top.lead,
      blocks: top.blocks,
      ...common,
    };
  }
  const count = announced.length - folded;
  const more = count > 1 ? ` (+${count - 1} more)` : '';
  const what = resolvedReason ? 'resolved' : notification.reason === 'repeat_elapsed' ? 'still firing' : 'new';
  return {
    subject: accountSubject(accounts, `${prefix}${top.headline}${more}`),
    tone: top.tone,
    heading: `${count} ${what} alert${count === 1 ? '' : 's'}${others.length > 0 ? `, ${others.length} more still firing` : ''}`,
    lead: [`${top.headline}.`, ...(count > 1 ? ['Each alert follows, the most severe first.'] : [])],
    blocks: [],
    ...common,
    sections: [
      ...views,
      ...(tail.length > 0 ? [{ headline: 'And', tone: 'info' as const, lead: [], blocks: tail }] : []),
    ],
  };
}

/** A resolved alert: what is over, when it was judged over, and how long it lasted. */
export function resolvedView(alert: AlertData, ctx: RenderContext): AlertView {
  const base = alertView(alert, ctx);
  const end = alert.resolvedAt ?? ctx.now;
  return {
    headline: `Resolved: ${base.title}`,
    title: base.title,
    tone: 'resolved',
    lead: [
      `${base.title}: over since ${formatDateTime(end, ctx.timeZone)}, after ${formatElapsed(end - alert.firedAt)}.`,
      `It fired ${formatDateTime(alert.firedAt, ctx.timeZone)}; nothing to do.`,
    ],
    blocks: [],
  };
}
