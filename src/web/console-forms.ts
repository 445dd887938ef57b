import type { IncomingMessage } from 'node:http';
import type { IdleCandidate } from '../actions/idle-status.js';
import { HOUR_MS } from '../buckets.js';
import type { AlertRecord } from '../db/alerts.js';
import { openAlertOf } from '../db/alerts.js';
import { livePods } from '../db/pods.js';
import { csrfFor, csrfMatches, silenceFromConsole, snoozeFromConsole } from '../links/index.js';
import { alertTitle } from '../messages/alert-view.js';
import { keepRunningDone, silenceDone } from '../messages/links.js';
import { sameOrigin } from './access.js';
import { html } from './html.js';
import type { LinkPageContext } from './link-pages.js';
import { messagePage, refusedFormPage, STATUS_PAGE_LINK } from './message-page.js';
import { podPath } from './receipt-view.js';
import { htmlReply, type Reply } from './reply.js';
import type { StatusForms } from './status-page.js';

export const KEEP_RUNNING_PATH = '/console/keep-running';
export const SILENCE_PATH = '/console/silence';
const CSRF_PURPOSE = 'status-page-form';

/** What the forms offer, like the emails' links: a few hours, or a day. */
const KEEP_FOR: ReadonlyArray<[string, number]> = [
  ['2 h', 2 * HOUR_MS],
  ['8 h', 8 * HOUR_MS],
  ['24 h', 24 * HOUR_MS],
];
const SILENCE_FOR: ReadonlyArray<[string, number]> = [
  ['4 h', 4 * HOUR_MS],
  ['24 h', 24 * HOUR_MS],
];

function options(choices: ReadonlyArray<[string, number]>) {
  return choices.map(([label, ms]) => html`<option value="${ms}">${label}</option>`);
}

/** The forms of the status page, each carrying a CSRF value bound to the viewer's session. */
export function statusForms(secret: Buffer, binding: string): StatusForms {
  const csrf = csrfFor(secret, CSRF_PURPOSE, binding);
  return {
    keepRunning: (candidate: IdleCandidate) => html`<form class="inline" method="post" action="${KEEP_RUNNING_PATH}">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="account" value="${candidate.account}"><input type="hidden" name="podId" value="${candidate.podId}">
<select name="for" aria-label="keep running for">${options(KEEP_FOR)}</select>
<button type="submit">Keep running</button></form>`,
    silence: (alert: AlertRecord) => html`<form class="inline" method="post" action="${SILENCE_PATH}">
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="alertKey" value="${alert.key}">
<select name="for" aria-label="silence for">${options(SILENCE_FOR)}</select>
<button class="secondary" type="submit">Silence</button></form>`,
  };
}

export interface ConsoleContext extends LinkPageContext {
  /** The session (or loopback) the CSRF value is bound to. */
  binding: string;
  /** Who acted, for the snooze or silence row. */
  by: string;
}

const refused = (status: number, reason: string) => htmlReply(status, refusedFormPage(reason, STATUS_PAGE_LINK));

/** The duration the form chose, or the refusal of one it does not offer. */
function chosen(form: URLSearchParams, choices: ReadonlyArray<[string, number]>): number | Reply {
  const ms = Number(form.get('for'));
  if (choices.some(([, offered]) => offered === ms)) return ms;
  return refused(400, `field "for": expected one of ${choices.map(([, m]) => m).join(', ')} (ms)`);
}

/** A POST of one of the status page's forms: same origin, the session's CSRF value, then the act. */
export async function consoleAct(
  context: ConsoleContext,
  path: string,
  req: IncomingMessage,
  form: URLSearchParams,
): Promise<Reply> {
  const origin = sameOrigin(req, context.config);
  if (!origin.ok) return refused(403, origin.reason);
  if (!csrfMatches(context.secret, CSRF_PURPOSE, context.binding, form.get('csrf') ?? '')) {
    return refused(
      403,
      'the form lacks its check value or it belongs to another session (reload the page and try again)',
    );
  }
  const { db, now, timeZone } = context;
  if (path === KEEP_RUNNING_PATH) {
    const account = form.get('account') ?? '';
    const podId = form.get('podId') ?? '';
    const ms = chosen(form, KEEP_FOR);
    if (typeof ms !== 'number') return ms;
    const pod = (await livePods(db, account)).find((p) => p.podId === podId);
    if (!pod) return refused(404, `no Pod ${podId} in account ${account}`);
    await snoozeFromConsole(db, { account, podId, until: now + ms, by: context.by }, now);
    return htmlReply(
      200,
      messagePage('Done', [keepRunningDone(pod.name || podId, now + ms, now, timeZone)], {
        tone: 'good',
        link: { href: podPath(account, podId), text: `The page of ${pod.name || podId}` },
      }),
    );
  }
  const key = form.get('alertKey') ?? '';
  const ms = chosen(form, SILENCE_FOR);
  if (typeof ms !== 'number') return ms;
  const alert = await openAlertOf(db, key);
  if (!alert) return refused(404, `the alert ${key} is not open any more`);
  await silenceFromConsole(db, { alertKey: key, until: now + ms, by: context.by }, now);
  return htmlReply(
    200,
    messagePage('Done', [silenceDone(alertTitle(alert, now, timeZone), now + ms, now, timeZone)], {
      tone: 'good',
      link: STATUS_PAGE_LINK,
    }),
  );
}
