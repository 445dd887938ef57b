import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { MJML_OPTIONS, renderHtml, renderHtmlDirect, skeletonOf } from '../../src/messages/html.js';
import { composeHtml, renderPieces } from '../../src/messages/html-pieces.js';
import type { EmailView } from '../../src/messages/view.js';
import { packagePath } from '../../src/package-root.js';
import { awkward, FIXTURE_VIEWS, PIECE_CORPUS, randomViews } from './views.js';

/**
 * Email HTML composed from pieces MJML rendered ahead (src/messages/html-pieces.ts) must be the
 * bytes MJML writes for the whole message. mjml-pieces.json is regenerated here from MJML and
 * compared with the file; `UPDATE_GOLDEN=1 npx vitest run test/messages/html-pieces.test.ts`
 * rewrites it after a template change.
 */
const PIECES = packagePath('src', 'messages', 'mjml-pieces.json');

function mjml(source: string): string {
  const whole = createRequire(import.meta.url)('mjml') as (
    source: string,
    options: object,
  ) => { html: string; errors: { formattedMessage: string }[] };
  const result = whole(source, MJML_OPTIONS);
  if (result.errors.length > 0) throw new Error(result.errors.map((e) => e.formattedMessage).join('; '));
  return result.html;
}

/** The message as renderHtml writes it from composed pieces, or undefined if a piece is unknown. */
function composed(view: EmailView): string | undefined {
  const { skeleton, contents } = skeletonOf(view);
  return composeHtml(skeleton)?.replace(/@@podwarden-slot-(\d+)@@/g, (_, n: string) => contents[Number(n)] as string);
}

describe('email HTML composed from pieces rendered ahead', () => {
  it('holds the pieces MJML renders for every piece html.ts writes', () => {
    const rendered = renderPieces(
      PIECE_CORPUS.map((view) => skeletonOf(view).skeleton),
      mjml,
    );
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(PIECES, `${JSON.stringify(rendered, null, 2)}\n`);
    expect(JSON.parse(readFileSync(PIECES, 'utf8')), 'mjml-pieces.json is stale (UPDATE_GOLDEN=1 rewrites it)').toEqual(
      rendered,
    );
  });

  it('composes every message byte for byte as MJML renders it', () => {
    const views: [string, EmailView][] = [
      ...FIXTURE_VIEWS,
      ...PIECE_CORPUS.map((view, i): [string, EmailView] => [`corpus ${i}`, view]),
      ...randomViews(150, 12).map((view, i): [string, EmailView] => [`random ${i} (seed 12)`, view]),
    ];
    for (const [name, view] of views) {
      const html = composed(view);
      expect(html, `${name} has a piece mjml-pieces.json lacks`).toBeDefined();
      expect(html, name).toBe(renderHtmlDirect(view));
    }
  });

  it('renders with MJML what it cannot compose, and composes nothing wrong', () => {
    let fallbacks = 0;
    for (const [name, view] of FIXTURE_VIEWS) {
      const odd = awkward(view);
      const html = composed(odd);
      if (html === undefined) fallbacks++;
      else expect(html, name).toBe(renderHtmlDirect(odd));
      expect(renderHtml(odd), name).toBe(renderHtmlDirect(odd));
    }
    // Empty contents stay in MJML's text as they are (MJML drops them): pieces no corpus holds.
    expect(fallbacks).toBeGreaterThan(0);
  });
});
