import { extensionReceipt } from '../actions/enforce/steps.js';
import type { AlertRecord } from '../db/alerts.js';
import { openAlertOf } from '../db/alerts.js';
import { type EnforceEpisodeRecord, enforceEpisodeAt, lastPlannedStop } from '../db/enforce-state.js';
import { episodeAt, openEpisodes } from '../db/idle-state.js';
import { type LinkWrite, redeemLinkWrite } from '../db/link-redemption.js';
import { usedLink } from '../db/links.js';
import type { Database } from '../db/open.js';
import { livePods, type PodRecord } from '../db/pods.js';
import { recentReceipts } from '../db/receipts.js';
import { alertTitle } from '../messages/alert-view.js';
import {
  alreadySnoozedDone,
  deadlineOver,
  extendDeadlineDone,
  extendDeadlinePreview,
  idleSpellOver,
  keepRunningDone,
  keepRunningPreview,
  type LinkRefusal,
  silenceDone,
  silencePreview,
} from '../messages/links.js';
import { endOf, type LinkClaims, type LinkTarget } from './claims.js';
import { identitySilence } from './console.js';
import { readToken } from './token.js';

/** What a link acts on, looked up at `now`: the Pod (and its planned stop) or the open alert. */
type LinkPreview = ReturnType<typeof keepRunningPreview | typeof silencePreview | typeof extendDeadlinePreview>;

type Subject =
  | { kind: 'pod'; pod: PodRecord; plannedStopAt: number | null }
  /** An extend-deadline link's: the Pod, its deadline episode and the deadline as last announced. */
  | { kind: 'deadline'; pod: PodRecord; episode: EnforceEpisodeRecord; deadline: number }
  | { kind: 'alert'; alert: AlertRecord }
  | { kind: 'gone'; detail: string };

/** A link that passes, with what the confirmation page shows before the POST that acts. */
export type LinkCheck =
  | { ok: true; claims: LinkClaims; preview: LinkPreview; subject: Exclude<Subject, { kind: 'gone' }> }
  | { ok: false; refusal: LinkRefusal };
export type LinkRedemption = { ok: true; done: string } | { ok: false; refusal: LinkRefusal };

/**
 * Verifies a token against what the URL names, at `now`: signature, subject, expiry, use, and
 * whether its action still makes sense. Reads only; a GET (a mail scanner's, a previewer's) may
 * call it any number of times.
 */
export async function checkLink(
  database: Database,
  secret: Buffer,
  token: string,
  expected: LinkTarget,
  now: number,
): Promise<LinkCheck> {
  const reading = readToken(secret, token);
  if (!reading.ok) return { ok: false, refusal: { reason: reading.reason } };
  const { claims } = reading;
  if (claims.action !== expected.action || claims.account !== expected.account || claims.subject !== expected.subject) {
    return { ok: false, refusal: { reason: 'other-subject', subject: subjectName(claims) } };
  }
  if (now >= claims.expiresAt) return { ok: false, refusal: { reason: 'expired', expiresAt: claims.expiresAt } };
  const used = await usedLink(database, claims.nonce);
  if (used) return { ok: false, refusal: { reason: 'used', usedAt: used.usedAt, recipient: used.recipient } };
  const subject = await lookUp(database, claims);
  if (subject.kind === 'gone') return { ok: false, refusal: { reason: 'gone', detail: subject.detail } };
  const until = endOf(claims, now);
  const preview =
    subject.kind === 'deadline'
      ? extendDeadlinePreview({
          podName: subject.pod.name || subject.pod.podId,
          costPerHr: subject.pod.costPerHr,
          deadline: subject.deadline,
          byMs: claims.durationMs ?? 0,
          now,
          timeZone: claims.timeZone,
        })
      : subject.kind === 'pod'
        ? keepRunningPreview({
            podName: subject.pod.name || subject.pod.podId,
            costPerHr: subject.pod.costPerHr,
            until,
            now,
            timeZone: claims.timeZone,
            plannedStopAt: subject.plannedStopAt,
          })
        : silencePreview({
            title: alertTitle(subject.alert, now, claims.timeZone),
            until,
            now,
            timeZone: claims.timeZone,
          });
  return { ok: true, claims, preview, subject };
}

/**
 * Acts: checks, then writes in one transaction (redeemLinkWrite) the nonce as used and the snooze
 * or silence saying it came from an emailed link and for whom, checking there again what may have
 * changed since. A second call finds the nonce and changes nothing.
 */
export async function redeemLink(
  database: Database,
  secret: Buffer,
  token: string,
  expected: LinkTarget,
  now: number,
): Promise<LinkRedemption> {
  for (;;) {
    const check = await checkLink(database, secret, token, expected, now);
    if (!check.ok) return check;
    const { claims, subject } = check;
    const until = endOf(claims, now);
    if (subject.kind === 'deadline') {
      const byMs = claims.durationMs ?? 0;
      const deadline = subject.deadline + byMs;
      const outcome = await redeemLinkWrite(database, usedRecord(claims, now), {
        kind: 'extend',
        episode: subject.episode,
        fromExtendedMs: subject.episode.extendedMs,
        byMs,
        receipt: extensionReceipt({
          episode: subject.episode,
          pod: subject.pod,
          byMs,
          stopAt: deadline,
          by: claims.recipient,
          now,
        }),
      });
      if (outcome.status === 'used') {
        return {
          ok: false,
          refusal: { reason: 'used', usedAt: outcome.used.usedAt, recipient: outcome.used.recipient },
        };
      }
      if (outcome.status === 'changed') continue;
      return {
        ok: true,
        done: extendDeadlineDone(subject.pod.name || subject.pod.podId, deadline, now, claims.timeZone),
      };
    }
    const write: LinkWrite =
      subject.kind === 'pod'
        ? {
            kind: 'snooze',
            snooze: {
              account: claims.account,
              podId: claims.subject,
              until,
              createdAt: now,
              source: 'email link',
              createdBy: claims.recipient,
            },
            episode: claims.episode,
          }
        : {
            kind: 'silence',
            alertKey: claims.subject,
            silence: identitySilence(subject.alert, {
              durationMs: until - now,
              comment: `silenced from an emailed link for ${claims.recipient} (${claims.label})`,
              createdBy: claims.recipient,
              source: 'email link',
              now,
            }),
          };
    const outcome = await redeemLinkWrite(database, usedRecord(claims, now), write);
    if (outcome.status === 'used') {
      return { ok: false, refusal: { reason: 'used', usedAt: outcome.used.usedAt, recipient: outcome.used.recipient } };
    }
    // The subject changed between the check and the write: check again, which refuses it or passes anew.
    if (outcome.status === 'changed') continue;
    if (subject.kind === 'pod') {
      const name = subject.pod.name || subject.pod.podId;
      return outcome.status === 'longer'
        ? { ok: true, done: alreadySnoozedDone(name, outcome.until, now, claims.timeZone) }
        : { ok: true, done: keepRunningDone(name, until, now, claims.timeZone) };
    }
    return {
      ok: true,
      done: silenceDone(alertTitle(subject.alert, now, claims.timeZone), until, now, claims.timeZone),
    };
  }
}

/** The nonce as used at `now`, by the link's recipients. */
function usedRecord(claims: LinkClaims, now: number) {
  return {
    nonce: claims.nonce,
    action: claims.action,
    account: claims.account,
    subject: claims.subject,
    recipient: claims.recipient,
    usedAt: now,
  };
}

function subjectName(claims: LinkClaims): string {
  return claims.action !== 'silence'
    ? `Pod ${claims.subject} (account ${claims.account})`
    : `alert ${claims.subject} (account ${claims.account})`;
}

async function lookUp(database: Database, claims: LinkClaims): Promise<Subject> {
  if (claims.action === 'silence') {
    const alert = await openAlertOf(database, claims.subject);
    return alert ? { kind: 'alert', alert } : { kind: 'gone', detail: `the alert ${claims.subject} is resolved` };
  }
  const pod = (await livePods(database, claims.account)).find((candidate) => candidate.podId === claims.subject);
  if (!pod) return { kind: 'gone', detail: `Pod ${claims.subject} no longer exists` };
  const name = pod.name || pod.podId;
  if (pod.status !== 'RUNNING') return { kind: 'gone', detail: `${name} is not running (${pod.status})` };
  if (claims.action === 'extend-deadline') return deadlineOf(database, claims, pod);
  const episode = (await openEpisodes(database, claims.account)).get(claims.subject);
  if (claims.episode !== null && episode?.startedAt !== claims.episode) {
    const ended = await episodeAt(database, {
      account: claims.account,
      podId: claims.subject,
      startedAt: claims.episode,
    });
    return { kind: 'gone', detail: idleSpellOver(name, ended?.endReason ?? null) };
  }
  const [last] = await recentReceipts(database, 1, { account: claims.account, podId: claims.subject });
  const plannedStopAt =
    episode && last?.decision === 'warned' && last.episodeStartedAt === episode.startedAt ? last.plannedStopAt : null;
  return { kind: 'pod', pod, plannedStopAt };
}

/** The deadline episode an extend-deadline link names (its occurrence), while it is open and undecided. */
async function deadlineOf(database: Database, claims: LinkClaims, pod: PodRecord): Promise<Subject> {
  const key = {
    account: claims.account,
    podId: pod.podId,
    kind: 'deadline' as const,
    occurrence: claims.episode ?? -1,
  };
  const episode = await enforceEpisodeAt(database, key);
  const deadline = episode ? await lastPlannedStop(database, key) : null;
  if (!episode || episode.endedAt !== null || episode.decidedAt !== null || deadline === null) {
    return {
      kind: 'gone',
      detail: deadlineOver(pod.name || pod.podId, episode?.endReason ?? null, episode?.decidedAt != null),
    };
  }
  return { kind: 'deadline', pod, episode, deadline };
}
