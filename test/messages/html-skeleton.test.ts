import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { renderHtml, renderHtmlDirect } from '../../src/messages/html.js';
import type { EmailView } from '../../src/messages/view.js';
import { packageRoot } from '../../src/package-root.js';
import { awkward, FIXTURE_VIEWS, randomViews } from './views.js';

/**
 * renderHtml renders each shape of message once, with placeholders, and fills in each message's
 * contents: it must write the very bytes MJML writes from the message's own MJML text.
 */
describe('email HTML rendered from cached skeletons', () => {
  it('equals MJML rendering each message itself, on a first and a repeated shape', () => {
    for (const [name, view] of FIXTURE_VIEWS) {
      const direct = renderHtmlDirect(view);
      expect(renderHtml(view), `${name}, first render of its shape`).toBe(direct);
      expect(renderHtml(view), `${name}, from the cached skeleton`).toBe(direct);
    }
  });

  it('fills a cached shape with each message own contents', () => {
    const [, base] = FIXTURE_VIEWS[0] as [string, EmailView];
    const other: EmailView = {
      ...base,
      subject: 'Another subject',
      heading: 'Another heading',
      lead: base.lead.map((sentence, i) => `${i}: ${sentence.split('').reverse().join('')}`),
      footer: base.footer.map((line) => line.toUpperCase()),
    };
    renderHtml(base);
    const html = renderHtml(other);
    expect(html).toBe(renderHtmlDirect(other));
    expect(html).toContain('Another heading');
    expect(html).not.toContain(base.heading);
  });

  it('keeps MJML trimming, empty contents and replacement patterns exact', () => {
    for (const [name, view] of FIXTURE_VIEWS) {
      const odd = awkward(view);
      const direct = renderHtmlDirect(odd);
      expect(renderHtml(odd), name).toBe(direct);
      expect(renderHtml(odd), `${name}, cached`).toBe(direct);
    }
  });

  it('equals MJML on messages of random shapes', () => {
    for (const [i, view] of randomViews(40, 26).entries()) {
      expect(renderHtml(view), `random view ${i}`).toBe(renderHtmlDirect(view));
    }
  });
});

describe('MJML as a library', () => {
  it('is loaded by the first HTML email rendered, not by importing the messages, and is the mjml package', () => {
    const program = `
      const { createRequire } = await import('node:module');
      const loaded = () => {
        const paths = Object.keys(createRequire(import.meta.url).cache);
        return ['mjml', 'mjml-core', 'mjml-preset-core']
          .filter((name) => paths.some((path) => path.includes('/node_modules/' + name + '/lib/index.js')));
      };
      const { renderMessage } = await import(${JSON.stringify(`${packageRoot}/src/messages/email.ts`)});
      const imported = loaded();
      const view = { subject: 's', tone: 'info', heading: 'h', lead: ['l'], actions: [], blocks: [], sections: [], footer: ['f'] };
      const { renderHtml } = await import(${JSON.stringify(`${packageRoot}/src/messages/html.ts`)});
      renderHtml(view);
      process.stdout.write(JSON.stringify({ imported, rendered: loaded(), renderMessage: typeof renderMessage }));`;
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], {
      cwd: packageRoot,
      encoding: 'utf8',
    });
    expect(JSON.parse(stdout)).toEqual({
      imported: [],
      rendered: ['mjml', 'mjml-core', 'mjml-preset-core'],
      renderMessage: 'function',
    });
  });
});
