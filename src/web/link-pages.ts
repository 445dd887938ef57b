import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import {
  checkLink,
  csrfFor,
  csrfMatches,
  describeRefusal,
  type LinkRefusal,
  type LinkTarget,
  redeemLink,
} from '../links/index.js';
import { sameOrigin } from './access.js';
import { html } from './html.js';
import { page } from './layout.js';
import { messagePage, refusedFormPage, STATUS_PAGE_LINK } from './message-page.js';
import { htmlReply, type Reply } from './reply.js';

/** The URLs emails carry (contract with src/links/): the path names what the token must be for. */
const KEEP_RUNNING = /^\/pods\/([^/]+)\/([^/]+)\/keep-running$/;
const EXTEND_DEADLINE = /^\/pods\/([^/]+)\/([^/]+)\/extend-deadline$/;
const SILENCE = /^\/alerts\/([^/]+)\/([^/]+)\/silence$/;

/** The CSRF purpose of the confirmation form, bound to the link's own token. */
const CSRF_PURPOSE = 'link-confirmation';

const STATUS: Record<LinkRefusal['reason'], number> = {
  malformed: 400,
  forged: 403,
  'other-subject': 403,
  expired: 410,
  used: 409,
  gone: 410,
};

/** A path segment decoded, or undefined when it is not valid percent-encoding. */
export function decodePart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** What a confirmation path names, or undefined when the path is not one. */
export function linkTarget(path: string): LinkTarget | undefined {
  const found = (
    [
      ['keep-running', KEEP_RUNNING],
      ['extend-deadline', EXTEND_DEADLINE],
      ['silence', SILENCE],
    ] as const
  )
    .map(([action, pattern]) => [action, pattern.exec(path)] as const)
    .find(([, match]) => match !== null);
  if (!found) return undefined;
  const [action, match] = found;
  const account = decodePart(match?.[1] ?? '');
  const subject = decodePart(match?.[2] ?? '');
  if (account === undefined || subject === undefined) return undefined;
  return { action, account, subject };
}

export interface LinkPageContext {
  db: Database;
  config: Config;
  secret: Buffer;
  now: number;
  timeZone: string;
}

function refusedPage(refusal: LinkRefusal, timeZone: string): Reply {
  return htmlReply(
    STATUS[refusal.reason],
    messagePage('This link cannot be used', [describeRefusal(refusal, timeZone)], {
      tone: 'bad',
      link: STATUS_PAGE_LINK,
    }),
  );
}

/**
 * GET shows the question and one button, and never acts: mail scanners and link previewers fetch
 * every link. No login: the signed token is the authority, and the page reveals no more than the
 * email did.
 */
export async function linkConfirmation(context: LinkPageContext, target: LinkTarget, token: string): Promise<Reply> {
  const check = await checkLink(context.db, context.secret, token, target, context.now);
  if (!check.ok) return refusedPage(check.refusal, context.timeZone);
  const { preview } = check;
  return htmlReply(
    200,
    page({
      title: target.action === 'silence' ? 'silence' : 'keep running',
      body: html`<section class="card warning">
<p class="question">${preview.question}</p>
${preview.detail.map((line) => html`<p>${line}</p>`)}
<form class="inline" method="post">
<input type="hidden" name="t" value="${token}">
<input type="hidden" name="csrf" value="${csrfFor(context.secret, CSRF_PURPOSE, token)}">
<button type="submit">${preview.button}</button>
</form>
<p class="meta">Sent to ${check.claims.recipient}; the link works once, until it expires.</p>
</section>`,
    }),
  );
}

/** The POST of the confirmation form: same origin, the CSRF value bound to the token, then one redemption. */
export async function linkAct(
  context: LinkPageContext,
  target: LinkTarget,
  req: IncomingMessage,
  form: URLSearchParams,
): Promise<Reply> {
  const origin = sameOrigin(req, context.config);
  if (!origin.ok) return htmlReply(403, refusedFormPage(origin.reason));
  const token = form.get('t') ?? '';
  if (!csrfMatches(context.secret, CSRF_PURPOSE, token, form.get('csrf') ?? '')) {
    return htmlReply(403, refusedFormPage('the form lacks its check value (open the link from the email again)'));
  }
  const result = await redeemLink(context.db, context.secret, token, target, context.now);
  if (!result.ok) return refusedPage(result.refusal, context.timeZone);
  return htmlReply(200, messagePage('Done', [result.done], { tone: 'good', link: STATUS_PAGE_LINK }));
}
