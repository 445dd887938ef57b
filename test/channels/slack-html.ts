import type { SlackBlock, SlackMessage } from '../../src/messages/slack.js';

/**
 * A Block Kit message as HTML that looks as Slack shows it (its layout, colours and type sizes),
 * for screenshots only: Slack renders the real thing. mrkdwn as podwarden writes it: `*bold*`,
 * `` `code` ``, ```` ```block``` ````, `<url|text>` links, `&amp;` `&lt;` `&gt;` already escaped
 * in data (so text is HTML-safe once the links are turned into anchors).
 */
export function slackHtml(message: SlackMessage, options: { app?: string; time?: string } = {}): string {
  const blocks = message.blocks.map(blockHtml).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<style>${STYLE}</style></head><body><div class="msg">
<div class="avatar">pw</div><div class="body">
<div class="meta"><b>${options.app ?? 'podwarden'}</b> <span class="app">APP</span> <span class="time">${options.time ?? '14:30'}</span></div>
${blocks}
</div></div></body></html>`;
}

function mrkdwn(text: string): string {
  const quote = (url: string) => url.replace(/"/g, '&quot;');
  return text
    .replace(/<([^|>\s]+)\|([^>]*)>/g, (_, url: string, label: string) => `<a href="${quote(url)}">${label}</a>`)
    .replace(/```([\s\S]*?)```/g, (_, code: string) => `<pre>${code}</pre>`)
    .replace(/`([^`\n]+)`/g, (_, code: string) => `<code>${code}</code>`)
    .replace(/(^|[\s(])\*([^*\n]+)\*(?=$|[\s).,:;])/gm, (_, before: string, bold: string) => `${before}<b>${bold}</b>`)
    .replace(/\n/g, '<br>')
    .replace(/<\/pre><br>/g, '</pre>');
}

function blockHtml(block: SlackBlock): string {
  switch (block.type) {
    case 'header':
      return `<div class="header">${block.text.text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</div>`;
    case 'section': {
      const text = block.text ? `<div class="text">${mrkdwn(block.text.text)}</div>` : '';
      const fields = block.fields
        ? `<div class="fields">${block.fields.map((field) => `<div>${mrkdwn(field.text)}</div>`).join('')}</div>`
        : '';
      return `<div class="section">${text}${fields}</div>`;
    }
    case 'actions':
      return `<div class="actions">${block.elements
        .map(
          (button) =>
            `<a class="button${button.style === 'primary' ? ' primary' : ''}" href="${button.url.replace(/"/g, '&quot;')}">${button.text.text}</a>`,
        )
        .join('')}</div>`;
    case 'context':
      return `<div class="context">${block.elements.map((element) => `<span>${mrkdwn(element.text)}</span>`).join('')}</div>`;
    case 'divider':
      return '<hr>';
  }
}

const STYLE = `
body { margin: 0; background: #fff; color: #1d1c1d; font: 15px/1.47 "Lato", "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; }
.msg { display: flex; gap: 8px; padding: 8px 20px; max-width: 100%; box-sizing: border-box; }
.avatar { flex: none; width: 36px; height: 36px; border-radius: 4px; background: #2f6f4f; color: #fff; font-weight: 700; display: flex; align-items: center; justify-content: center; font-size: 14px; }
.body { flex: 1; min-width: 0; }
.meta b { font-weight: 900; } .app { font-size: 10px; background: #e8e8e8; color: #616061; padding: 1px 3px; border-radius: 2px; font-weight: 700; } .time { color: #616061; font-size: 12px; }
.header { font-size: 18px; font-weight: 900; line-height: 1.33; margin: 6px 0 4px; overflow-wrap: anywhere; }
.section { margin: 4px 0 8px; overflow-wrap: anywhere; }
.fields { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 8px 16px; margin-top: 4px; }
.text + .fields { margin-top: 8px; }
code { font: 12px "DejaVu Sans Mono", Monaco, Menlo, monospace; color: #e01e5a; background: #f8f8f8; border: 1px solid #e0e0e0; border-radius: 3px; padding: 1px 3px; }
pre { font: 12px/1.5 "DejaVu Sans Mono", Monaco, Menlo, monospace; background: #f8f8f8; border: 1px solid #e0e0e0; border-radius: 4px; padding: 8px; margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
a { color: #1264a3; text-decoration: none; }
.actions { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 12px; }
.button { display: inline-block; padding: 0 12px; height: 28px; line-height: 28px; border: 1px solid #bbbabb; border-radius: 4px; color: #1d1c1d; font-weight: 700; font-size: 13px; white-space: nowrap; max-width: 100%; overflow: hidden; text-overflow: ellipsis; box-sizing: border-box; }
.button.primary { background: #007a5a; border-color: #007a5a; color: #fff; }
.context { color: #616061; font-size: 12px; display: flex; flex-wrap: wrap; gap: 4px 12px; margin: 8px 0; }
hr { border: 0; border-top: 1px solid #ddd; margin: 12px 0; }
`;
