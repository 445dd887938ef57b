import { version } from '../package-root.js';
import { html, type SafeHtml } from './html.js';
import { STYLESHEET_URL } from './styles.js';

/** No scripts at all, styles only from our stylesheet, forms only to us, never in a frame. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Sent with every HTML reply. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export interface PageOptions {
  title: string;
  /** Shown above everything, e.g. "served to loopback only". */
  banner?: SafeHtml | string;
  body: SafeHtml;
  footer?: string;
}

/** The shell of every page: viewport for phones, the stylesheet, a header linking home. */
export function page(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · podwarden</title>
<link rel="stylesheet" href="${STYLESHEET_URL}">
</head>
<body>
<main>
<header class="top"><h1><a href="/">podwarden</a></h1></header>
${options.banner ? html`<p class="banner">${options.banner}</p>` : ''}
${options.body}
<footer>podwarden ${version}${options.footer ? ` · ${options.footer}` : ''}</footer>
</main>
</body>
</html>
`.text;
}
