import type { AlertRecord } from '../db/alerts.js';
import { openAlertOf } from '../db/alerts.js';
import { episodeAt, openEpisodes } from '../db/idle-state.js';
import { type LinkWrite, redeemLinkWrite } from '../db/link-redemption.js';
import { usedLink } from '../db/links.js';
import type { Database } from '../db/open.js';
import { livePods, type PodRecord } from '../db/pods.js';
import { recentReceipts } from '../db/receipts.js';
import { alertTitle } from '../messages/alert-view.js';
import {
  alreadySnoozedDone,
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
type LinkPreview = ReturnType<typeof keepRunningPreview | typeof silencePreview>;

type Subject =
  | { kind: 'pod'; pod: PodRecord; plannedStopAt: number | null }
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
    subject.kind === 'pod'
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
    const outcome = await redeemLinkWrite(
      database,
      {
        nonce: claims.nonce,
        action: claims.action,
        account: claims.account,
        subject: claims.subject,
        recipient: claims.recipient,
        usedAt: now,
      },
      write,
    );
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

function subjectName(claims: LinkClaims): string {
  return claims.action === 'keep-running'
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
