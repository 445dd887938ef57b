import { randomBytes } from 'node:crypto';
import type { NotifyAlert } from '../alerts/alert.js';
import { announcedAlerts } from '../alerts/outbox.js';
import type { Notification } from '../alerts/pipeline.js';
import { HOUR_MS } from '../buckets.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { openEpisodes } from '../db/idle-state.js';
import type { Database } from '../db/open.js';
import { formatClock, formatElapsed } from '../format.js';
import { alertView } from '../messages/alert-view.js';
import { BARE_COMMAND_LINE, identityMatchers } from '../messages/commands.js';
import { bySeverity } from '../messages/email.js';
import { podOf } from '../messages/same-pod.js';
import type { Action } from '../messages/view.js';
import { detailsOf } from '../rules/finding-details.js';
import { currentPeriod, localHour } from '../rules/period.js';
import type { LinkActionKind, LinkClaims } from './claims.js';
import { loadLinkSecret } from './secret.js';
import { signLink } from './token.js';

/** A message with more alerts than this carries links for the first ones only: a mail of buttons helps no one. */
const LINKED_ALERTS = 3;
/** Idle stages whose Pod is still running, so keeping it running means something. */
const RUNNING_STAGES = new Set(['idle', 'held', 'warn']);

export interface EmailLinkSettings {
  /** `http.publicUrl`, without its trailing slash. */
  publicUrl: string;
  secret: Buffer;
  expiryMs: number;
  /** The zone "until tomorrow 09:00" is read in. */
  timeZone: string;
  /** Random by default; tests pass a counter so golden mails stay the same. */
  nonce?: () => string;
  /** The start of the Pod's open idle episode: a keep-running link is only good for that one. */
  episodeOf(account: string, podId: string): number | null;
}

/** The signed links of one notification's email. */
export type EmailLinks = (notification: Notification) => Action[];

/**
 * The link maker of the daemon's configuration, or undefined without `http.publicUrl`: then mails
 * carry no links. The zone is the digest's (`alerts.digest.timeZone`), the only zone a
 * recipient configures; UTC without a digest. One message goes to all its recipients at once, so
 * a link records them all (the outbox sends each message once, under one Message-ID).
 */
export async function emailLinksFor(database: Database, config: Config, clock: Clock): Promise<EmailLinks | undefined> {
  const { publicUrl } = config.http;
  if (publicUrl === undefined) return undefined;
  // Read before the tick's mails are rendered, after its idle ladder opened and closed episodes.
  const episodes = new Map<string, ReadonlyMap<string, { startedAt: number }>>();
  for (const { name } of config.accounts) episodes.set(name, await openEpisodes(database, name));
  return emailLinks({
    publicUrl: publicUrl.replace(/\/+$/, ''),
    secret: await loadLinkSecret(database, config, clock),
    expiryMs: config.http.linkExpiryMs,
    timeZone: config.alerts.digest?.timeZone ?? 'UTC',
    episodeOf: (account, podId) => episodes.get(account)?.get(podId)?.startedAt ?? null,
  });
}

export function emailLinks(settings: EmailLinkSettings): EmailLinks {
  const nonce = settings.nonce ?? (() => randomBytes(12).toString('base64url'));
  return (notification) => {
    const resolved = notification.reason === 'new_resolved' || notification.reason === 'all_resolved';
    const announced = resolved ? [] : announcedAlerts(notification);
    // In the message's order: the links under a Pod's section are for its most severe alert (the
    // warning, not the notice before it), so a Silence link there names and silences the warning.
    const alerts = [...announced].sort(bySeverity).slice(0, LINKED_ALERTS);
    const recipient = notification.receiver.join(', ');
    const { now } = notification;
    const pods = new Set(alerts.flatMap((alert) => runningPod(alert) ?? []));
    const linkedPods = new Set<string>();
    const silenced = new Set<string>();
    const titles = (alert: NotifyAlert) =>
      alertView(alert, { now, timeZone: settings.timeZone, commandLine: BARE_COMMAND_LINE }).title;
    const distinct = new Set(alerts.map((alert) => identityMatchers(alert.rule, alert.labels).join(' '))).size;
    return alerts.flatMap((alert) => {
      const make = (action: LinkActionKind, subject: string, end: LinkEnd, episode: number | null) =>
        signLink(settings.secret, {
          ...end,
          action,
          account: alert.account,
          subject,
          recipient,
          expiresAt: Math.min(now + settings.expiryMs, end.durationMs === null ? end.until : Number.POSITIVE_INFINITY),
          nonce: nonce(),
          timeZone: settings.timeZone,
          episode,
        });
      const links: Action[] = [];
      const pod = runningPod(alert);
      // A notice and a warning about the same Pod often share a message: one set of links for it.
      if (pod !== undefined && !linkedPods.has(pod)) {
        linkedPods.add(pod);
        const podId = alert.labels.pod_id as string;
        const episode = settings.episodeOf(alert.account, podId);
        const name = alert.labels.pod_name || podId;
        const podPath = `${settings.publicUrl}/pods/${encodeURIComponent(alert.account)}/${encodeURIComponent(podId)}`;
        const extension = deadlineExtension(alert);
        if (extension) {
          // A deadline is moved, not snoozed: one link, for this run of the Pod only.
          const until = extension.stopAt + extension.byMs;
          const end = { label: formatElapsed(extension.byMs), durationMs: extension.byMs, until };
          const label = `Keep ${pods.size > 1 ? `${name} ` : ''}running ${end.label} longer (until ${formatClock(until, settings.timeZone)})`;
          links.push({
            label,
            href: `${podPath}/extend-deadline?t=${make('extend-deadline', podId, end, extension.occurrence)}`,
          });
        }
        const path = `${podPath}/keep-running?t=`;
        for (const end of extension ? [] : keepRunningEnds(now, settings.timeZone)) {
          const label = pods.size > 1 ? `Keep ${name} running ${end.label}` : `Keep running ${end.label}`;
          links.push({ label, href: path + make('keep-running', podId, end, episode) });
        }
      }
      // A silence matches the alert's identity (messages/commands.ts): the notice and the warning
      // about one Pod are silenced together, so they get one pair of links.
      const identity = identityMatchers(alert.rule, alert.labels).join(' ');
      if (silenced.has(identity)) return links;
      silenced.add(identity);
      const path = `${settings.publicUrl}/alerts/${encodeURIComponent(alert.account)}/${encodeURIComponent(alert.key)}/silence?t=`;
      for (const end of [hoursFrom(now, 4), hoursFrom(now, 24)]) {
        const label = distinct > 1 ? `Silence for ${end.label}: ${titles(alert)}` : `Silence for ${end.label}`;
        links.push({ label, href: path + make('silence', alert.key, end, null) });
      }
      return links;
    });
  };
}

type LinkEnd = Pick<LinkClaims, 'label' | 'durationMs' | 'until'>;

/** An end counted from the click, with the `until` it would be at the time of mailing. */
const hoursFrom = (now: number, hours: number): LinkEnd => ({
  label: `${hours} h`,
  durationMs: hours * HOUR_MS,
  until: now + hours * HOUR_MS,
});

/** What a deadline's warning offers to move: its stop, by how much, and the run it is about. */
function deadlineExtension(alert: NotifyAlert): { stopAt: number; byMs: number; occurrence: number } | undefined {
  const d = detailsOf(alert.details, 'enforce');
  if (d?.enforceKind !== 'deadline' || d.stage !== 'warn' || !d.extendByMs) return undefined;
  return { stopAt: d.stopAt, byMs: d.extendByMs, occurrence: d.occurrence };
}

/** The Pod an alert offers to keep running (`account/podId`): an idle alert about one running Pod. */
const runningPod = (alert: NotifyAlert) => (RUNNING_STAGES.has(String(alert.details.stage)) ? podOf(alert) : undefined);

function keepRunningEnds(now: number, timeZone: string): LinkEnd[] {
  const tomorrow9 = nextDayAt(now, 9, timeZone);
  return [
    hoursFrom(now, 2),
    hoursFrom(now, 8),
    { label: `until tomorrow ${formatClock(tomorrow9, timeZone)}`, durationMs: null, until: tomorrow9 },
  ];
}

/** `hour`:00 of the day after `now`'s, on the clocks of `timeZone` (a DST change in the night included). */
function nextDayAt(now: number, hour: number, timeZone: string): number {
  const midnight = currentPeriod({ period: 'day', timeZone, weekStartsOn: 'monday', monthResetDay: 1 }, now).endMs;
  const guess = midnight + hour * HOUR_MS;
  return guess + (hour - localHour(guess, timeZone)) * HOUR_MS;
}
