import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/package-root.js';

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
