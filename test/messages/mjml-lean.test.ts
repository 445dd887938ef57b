import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MJML_OPTIONS, mjmlSource, renderHtmlDirect } from '../../src/messages/html.js';
import { loadLeanMjml } from '../../src/messages/mjml.js';
import { packageRoot } from '../../src/package-root.js';
import { awkward, FIXTURE_VIEWS } from './views.js';

/**
 * html.ts renders through MJML loaded lean (src/messages/mjml.ts: mjml-core with our components
 * only, and the modules it never calls for our messages loaded when first called). Each message
 * must come out as the whole `mjml` package writes it, loaded the ordinary way in a process of its
 * own, so nothing of the lean loading can leak into the reference.
 */
interface Rendered {
  html: string;
  errors: unknown[];
}

function renderWithWholeMjml(sources: string[], options: object): Rendered[] {
  const program = `
    const mjml = require('mjml');
    const { sources, options } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    const out = sources.map((source) => { const r = mjml(source, options); return { html: r.html, errors: r.errors }; });
    process.stdout.write(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['-e', program], {
    cwd: packageRoot,
    input: JSON.stringify({ sources, options }),
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
    // MJML's own deprecation warnings for minify and beautify.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return JSON.parse(stdout) as Rendered[];
}

describe('MJML loaded lean', () => {
  it('renders every message byte for byte as the whole mjml package does', () => {
    const views = FIXTURE_VIEWS.flatMap(([name, view]) => [
      [name, view] as const,
      [`${name}, awkward contents`, awkward(view)] as const,
    ]);
    const whole = renderWithWholeMjml(
      views.map(([, view]) => mjmlSource(view)),
      MJML_OPTIONS,
    );
    expect(whole).toHaveLength(views.length);
    for (const [i, [name, view]] of views.entries()) {
      expect(whole[i]?.errors, name).toEqual([]);
      expect(renderHtmlDirect(view), name).toBe(whole[i]?.html);
    }
  });

  it('still runs what it deferred when a message asks for it: inline styles, minify, beautify', () => {
    const source = `<mjml><mj-head><mj-style inline="inline">.big { font-size: 30px; color: #b91c1c; }</mj-style></mj-head>
<mj-body><mj-section><mj-column><mj-text css-class="big"><p class="big">Inlined</p></mj-text></mj-column></mj-section></mj-body></mjml>`;
    const cases = [{ ...MJML_OPTIONS }, { ...MJML_OPTIONS, minify: true }, { ...MJML_OPTIONS, beautify: true }];
    const lean = loadLeanMjml();
    for (const options of cases) {
      const [whole] = renderWithWholeMjml([source], options);
      // minify and beautify warn that they are deprecated; the warning is MJML's, not ours.
      const quiet = console.warn;
      console.warn = () => {};
      let html: string;
      try {
        html = (lean(source, options as never) as unknown as Rendered).html;
      } finally {
        console.warn = quiet;
      }
      expect(html, JSON.stringify(options)).toBe(whole?.html);
    }
    // juice did run: the style sits on the paragraph itself.
    expect((lean(source, MJML_OPTIONS as never) as unknown as Rendered).html).toMatch(
      /<p class="big" style="[^"]*30px/,
    );
  });

  it('is not loaded for a message composed from pieces, and loads only what MJML calls when it is', () => {
    const program = `
      const { renderHtml, renderHtmlDirect } = await import(${JSON.stringify(`${packageRoot}/src/messages/html.ts`)});
      const view = { subject: 's', tone: 'info', heading: 'h', lead: ['l'], actions: [{ label: 'a', href: 'https://x' }],
        blocks: [{ type: 'table', rows: [['k', 'v']] }], sections: [], footer: ['f'] };
      const { createRequire } = await import('node:module');
      const loaded = () => {
        const paths = Object.keys(createRequire(import.meta.url).cache);
        return ['mjml-core', 'mjml-text', 'juice', 'html-minifier', 'js-beautify', 'cheerio', 'mjml-carousel']
          .filter((name) => paths.some((path) => path.includes('/node_modules/' + name + '/')));
      };
      renderHtml(view);
      const composed = loaded();
      renderHtmlDirect(view);
      process.stdout.write(JSON.stringify({ composed, direct: loaded() }));`;
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      cwd: packageRoot,
      encoding: 'utf8',
    });
    expect(JSON.parse(stdout)).toEqual({ composed: [], direct: ['mjml-core', 'mjml-text'] });
  });
});
