import { describe, expect, it } from 'vitest';
import { html } from '../../src/web/html.js';

describe('the html tag', () => {
  it('escapes every interpolated string, in text and in attributes, and keeps its own markup', () => {
    const name = `"><script>alert('x')</script>&`;
    const inner = html`<b>${name}</b>`;
    const out = html`<a title="${name}">${inner}${[name, 2]}${null}${false}${undefined}</a>`.text;
    expect(out).toBe(
      '<a title="&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;"><b>&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;</b>&#34;&#62;&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;2</a>',
    );
  });
});
