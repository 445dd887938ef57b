import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { formatElapsed } from '../format.js';
import type { MetricsSource } from '../metrics/source.js';
import { type Access, pageAccess, sameOrigin, sameSecret, servedOverHttps, sessionCookie } from './access.js';
import { clientAddress } from './client-address.js';
import { consoleAct, KEEP_RUNNING_PATH, SILENCE_PATH, statusForms } from './console-forms.js';
import { decodePart, type LinkPageContext, linkAct, linkConfirmation, linkTarget } from './link-pages.js';
import type { LoginAttempts } from './login-attempts.js';
import { loginPage, messagePage, refusedFormPage } from './message-page.js';
import { podData, renderPodPage } from './pod-page.js';
import { htmlReply, type Reply, seeOther } from './reply.js';
import { statusData } from './status-data.js';
import { renderStatusPage } from './status-page.js';
import { STYLESHEET, STYLESHEET_HASH, STYLESHEET_PATH } from './styles.js';

export interface WebContext {
  config: Config;
  source: MetricsSource;
  clock: Clock;
  /** The link secret (src/links/): signs the emails' tokens and the forms' CSRF values. */
  secret(): Promise<Buffer>;
  /** Wrong tokens typed into /login lately, per client address and in all. */
  loginAttempts: LoginAttempts;
}

export interface WebRequest {
  req: IncomingMessage;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The urlencoded form of a POST. */
  form: URLSearchParams;
}

/** The zone pages show times in: the digest's, the one zone a team configures for people. */
export function pageTimeZone(config: Config): string {
  return config.alerts.digest?.timeZone ?? 'UTC';
}

const POD_PAGE = /^\/pods\/([^/]+)\/([^/]+)$/;

function refused(access: Exclude<Access, { ok: true }>): Reply {
  if (access.login) return htmlReply(access.status, loginPage(access.reason));
  return htmlReply(access.status, messagePage('Not allowed', [access.reason], { tone: 'bad' }));
}

/** The pages, forms and links; undefined for a path that is not one (the server answers it). */
export async function webRoute(context: WebContext, request: WebRequest): Promise<Reply | undefined> {
  const { config, source, clock } = context;
  const { req, method, path } = request;
  if (path === STYLESHEET_PATH) {
    // Pages link to it with the content's hash: that URL never changes meaning, so cache it forever.
    const cache = request.query.get('v') === STYLESHEET_HASH ? 'public, max-age=31536000, immutable' : 'no-cache';
    return {
      status: 200,
      type: 'text/css; charset=utf-8',
      body: STYLESHEET,
      headers: { 'cache-control': cache, 'x-content-type-options': 'nosniff' },
    };
  }
  if (path === '/login') {
    if (method === 'GET') {
      // Without a token there is nothing to sign in to: the page itself says who may see it.
      return config.http.bearerToken === undefined
        ? seeOther('/')
        : htmlReply(200, loginPage('Enter the access token'));
    }
    if (method !== 'POST') return undefined;
    const origin = sameOrigin(req, config);
    if (!origin.ok) return htmlReply(403, refusedFormPage(origin.reason));
    const token = config.http.bearerToken;
    if (token === undefined) return seeOther('/');
    const client = clientAddress(req, config);
    const now = clock.now();
    // A refused client's token is not checked: a different answer to the right one would let
    // a guesser go on guessing past the limit.
    const refusal = context.loginAttempts.refusedUntil(client, now);
    if (refusal !== undefined) {
      const wait = Math.max(1, Math.ceil((refusal.until - now) / 1000));
      const why =
        refusal.by === 'client'
          ? `Too many wrong tokens from ${client}`
          : `Too many wrong tokens from all addresses together, one of them from ${client}`;
      return htmlReply(
        429,
        loginPage(
          `${why}; no token from this address is checked for ${formatElapsed(wait * 1000)} more (other addresses are not affected)`,
        ),
        { 'retry-after': String(wait) },
      );
    }
    if (sameSecret(request.form.get('token') ?? '', token)) {
      return seeOther('/', { 'set-cookie': sessionCookie(token, servedOverHttps(req, config)) });
    }
    context.loginAttempts.failed(client, now);
    return htmlReply(401, loginPage('That is not the configured token; try again'));
  }
  // What a link or a form acts with; the secret is read only by the routes that need it.
  const actContext = async (): Promise<LinkPageContext> => ({
    db: source.db,
    config,
    secret: await context.secret(),
    now: clock.now(),
    timeZone: pageTimeZone(config),
  });
  const target = linkTarget(path);
  if (target) {
    // No login: the signed token is the authority (the link works from a phone's mail app).
    const linkContext = await actContext();
    if (method === 'GET' || method === 'HEAD')
      return linkConfirmation(linkContext, target, request.query.get('t') ?? '');
    if (method === 'POST') return linkAct(linkContext, target, req, request.form);
    return undefined;
  }
  if (path === KEEP_RUNNING_PATH || path === SILENCE_PATH) {
    if (method !== 'POST') return undefined;
    const access = pageAccess(req, config);
    if (!access.ok) return refused(access);
    const by = access.loopbackOnly ? `status page (loopback)` : 'status page (signed in with the token)';
    return consoleAct({ ...(await actContext()), binding: access.binding, by }, path, req, request.form);
  }
  if (path === '/' || POD_PAGE.test(path)) {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const access = pageAccess(req, config);
    if (!access.ok) return refused(access);
    const now = clock.now();
    const forms = statusForms(await context.secret(), access.binding);
    const options = { timeZone: pageTimeZone(config), loopbackOnly: access.loopbackOnly, forms };
    if (path === '/') return htmlReply(200, renderStatusPage(await statusData(source, config, now), options));
    const [, account = '', podId = ''] = (POD_PAGE.exec(path) ?? []).map((part) => decodePart(part) ?? part);
    if (!config.accounts.some((a) => a.name === account)) {
      return htmlReply(
        404,
        messagePage('No such account', [`No account named "${account}" is configured.`], {
          tone: 'bad',
          link: { href: '/', text: 'Back to the status page' },
        }),
      );
    }
    return htmlReply(200, renderPodPage(await podData(source, config, account, podId, now), { ...options, now }));
  }
  return undefined;
}
