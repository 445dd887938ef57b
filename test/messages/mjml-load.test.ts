import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadMjml } from '../../src/messages/mjml-load.js';

/**
 * MJML loaded with its rarely used libraries deferred must render exactly what MJML loaded the
 * plain way renders, including the features that need those libraries: inline styles (juice),
 * mj-html-attributes (cheerio) and MJML 3 migration (js-beautify).
 */
const USES_DEFERRED = `<mjml>
<mj-head>
<mj-style inline="inline">.pill { color: #b91c1c; font-weight: 700; }</mj-style>
<mj-html-attributes><mj-selector path=".pill div"><mj-html-attribute name="data-kind">budget</mj-html-attribute></mj-selector></mj-html-attributes>
</mj-head>
<mj-body><mj-section><mj-column>
<mj-text css-class="pill">Over budget</mj-text>
<mj-button href="https://example.invalid/">Look</mj-button>
</mj-column></mj-section></mj-body>
</mjml>`;

const OPTIONS = { validationLevel: 'strict', keepComments: false } as const;

/** The same document through MJML required the ordinary way, in a process of its own. */
function plainMjml(mjml: string, options: object): { html: string; errors: unknown[] } {
  // MJML may print on stdout itself (a migration notice): the result follows a marker.
  const script = `let input = ''; process.stdin.on('data', (c) => { input += c; }).on('end', () => {
    const result = require('mjml')(input, ${JSON.stringify(options)});
    process.stdout.write('\\n=RESULT=' + JSON.stringify({ html: result.html, errors: result.errors }));
  });`;
  const child = spawnSync(process.execPath, ['-e', script], { input: mjml, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`plain MJML failed: ${child.stderr}`);
  return JSON.parse(child.stdout.slice(child.stdout.lastIndexOf('=RESULT=') + '=RESULT='.length));
}

describe('MJML with deferred libraries', () => {
  it('renders byte for byte what plain MJML renders, deferred features included', () => {
    const result = loadMjml()(USES_DEFERRED, OPTIONS) as unknown as { html: string; errors: unknown[] };
    expect(result.errors).toEqual([]);
    // juice inlined the style, cheerio set the attribute.
    expect(result.html).toMatch(/style="[^"]*color: ?#b91c1c/);
    expect(result.html).toContain('data-kind="budget"');
    expect({ html: result.html, errors: result.errors }).toEqual(plainMjml(USES_DEFERRED, OPTIONS));
  });

  it('migrates an MJML 3 document (js-beautify) as plain MJML does', () => {
    const v3 = `<mjml><mj-body><mj-container><mj-section><mj-column><mj-text>Hi</mj-text></mj-column></mj-section></mj-container></mj-body></mjml>`;
    const options = { validationLevel: 'soft' } as const;
    const result = loadMjml()(v3, options) as unknown as { html: string };
    expect(result.html).toContain('Hi');
    expect(result.html).toBe(plainMjml(v3, options).html);
  });

  it('leaves the real libraries to anyone else who requires them', () => {
    loadMjml();
    const juice = createRequire(import.meta.url)('juice') as (html: string, options?: object) => string;
    expect(juice('<style>p{color:red}</style><p>x</p>')).toContain('<p style="color: red;">x</p>');
  });
});
