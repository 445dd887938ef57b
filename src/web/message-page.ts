import { capitalize } from '../messages/text.js';
import { html } from './html.js';
import { page } from './layout.js';

/** A page that says one thing: a refusal, an error, a result. */
export function messagePage(
  title: string,
  sentences: readonly string[],
  options: { tone?: 'bad' | 'good'; link?: { href: string; text: string } } = {},
): string {
  return page({
    title,
    body: html`<section class="card${options.tone === 'bad' ? ' critical' : ''}"><h2>${title}</h2>${sentences.map((s) => html`<p>${s}</p>`)}${
      options.link ? html`<p><a href="${options.link.href}">${options.link.text}</a></p>` : ''
    }</section>`,
  });
}

/** The link back to `/` under a page that acted or refused. */
export const STATUS_PAGE_LINK = { href: '/', text: 'The status page' };

/** A form that was refused: why, and that nothing changed. */
export function refusedFormPage(reason: string, link?: { href: string; text: string }): string {
  return messagePage('Refused', [`${capitalize(reason)}; nothing changed.`], { tone: 'bad', link });
}

/** The login form: the token is sent once and exchanged for a session cookie. */
export function loginPage(reason: string): string {
  return page({
    title: 'sign in',
    body: html`<section class="card"><h2>Access token</h2>
<p>${reason}.</p>
<p class="muted">The token is http.bearerToken of podwarden's configuration. Your browser keeps a session cookie derived from it, never the token.</p>
<form class="inline" method="post" action="/login">
<input type="password" name="token" autocomplete="current-password" aria-label="access token" required>
<button type="submit">Sign in</button>
</form></section>`,
  });
}
