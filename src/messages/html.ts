import { createRequire } from 'node:module';
import type mjml2htmlType from 'mjml';
import { formatPercent } from '../format.js';
import type { BarBlock, Block, EmailView, SparkBlock, Tone } from './view.js';

/**
 * The HTML part, written as MJML: MJML turns a few semantic tags into the nested tables, inline
 * styles and Outlook conditionals that mail clients need, and stacks columns on a phone. Every
 * figure and name is escaped here; templates hand over plain text only. No SVG, no scripts, no
 * web fonts: mail clients strip them, so bars and sparklines are table cells.
 */

interface MjmlResult {
  html: string;
  errors: { formattedMessage: string }[];
}

const TONE_COLOR: Record<Tone, string> = {
  info: '#2563eb',
  warning: '#b45309',
  critical: '#b91c1c',
  resolved: '#15803d',
};
const MUTED = '#6b7280';
const TRACK = '#e5e7eb';
const FONT = "-apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, 'Liberation Mono', monospace";

/**
 * MJML is required the first time a message's HTML is rendered, not by every command that imports
 * the messages. Rendering stays synchronous because it runs inside the store transaction that
 * queues the message; MJML 4 is CommonJS, so `require` loads it synchronously.
 */
let loadedMjml: typeof mjml2htmlType | undefined;
function mjml2html(...args: Parameters<typeof mjml2htmlType>): ReturnType<typeof mjml2htmlType> {
  loadedMjml ??= createRequire(import.meta.url)('mjml') as typeof mjml2htmlType;
  return loadedMjml(...args);
}

/** Text for an element or a quoted attribute: the five characters that end either are escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The HTML part of a message: what MJML renders from the message's MJML text. */
export function renderHtml(view: EmailView): string {
  // MJML 4 renders synchronously; @types/mjml-core describes MJML 5's promise.
  const result = mjml2html(mjmlOf(view), { validationLevel: 'strict', keepComments: false }) as unknown as MjmlResult;
  if (typeof result.html !== 'string') throw new Error('email template: MJML did not render synchronously');
  if (result.errors.length > 0) {
    throw new Error(`email template: ${result.errors.map((e) => e.formattedMessage).join('; ')}`);
  }
  return result.html;
}

function mjmlOf(view: EmailView): string {
  const color = TONE_COLOR[view.tone];
  const body = [
    `<mj-text font-size="12px" font-weight="700" color="${color}" padding="0 0 4px 0" css-class="tone">${view.tone.toUpperCase()}</mj-text>`,
    `<mj-text font-size="20px" line-height="1.3" font-weight="700" padding="0 0 12px 0">${escapeHtml(view.heading)}</mj-text>`,
    ...leadOf(view.lead),
    // Right under the lead: on a phone, "Keep running" must not hide below the figures.
    ...actionsOf(view.actions, color),
    ...view.blocks.map((block) => blockOf(block, color)),
  ];
  const sections = view.sections.map((section) =>
    [
      `<mj-divider border-width="1px" border-color="${TRACK}" padding="8px 0 16px 0" />`,
      `<mj-text font-size="16px" font-weight="700" padding="0 0 8px 0"><span style="color:${TONE_COLOR[section.tone]}">●</span> ${escapeHtml(section.headline)}</mj-text>`,
      ...leadOf(section.lead),
      ...section.blocks.map((block) => blockOf(block, TONE_COLOR[section.tone])),
    ].join('\n'),
  );
  return `<mjml>
<mj-head>
<mj-title>${escapeHtml(view.subject)}</mj-title>
<mj-preview>${escapeHtml(view.lead.join(' '))}</mj-preview>
<mj-attributes>
<mj-all font-family="${FONT}" />
<mj-text font-size="15px" line-height="1.5" color="#111827" padding="0 0 12px 0" />
</mj-attributes>
<mj-style>
.cmd { word-break: break-all; overflow-wrap: anywhere; }
.cell { word-break: break-word; overflow-wrap: anywhere; }
</mj-style>
</mj-head>
<mj-body background-color="#f3f4f6" width="640px">
<mj-section padding="16px 12px 8px 12px"><mj-column>
<mj-text font-size="13px" color="${MUTED}" padding="0">podwarden</mj-text>
</mj-column></mj-section>
<mj-section background-color="#ffffff" border-top="4px solid ${color}" padding="20px 20px 8px 20px"><mj-column>
${body.join('\n')}
${sections.join('\n')}
</mj-column></mj-section>
<mj-section padding="12px 20px 24px 20px"><mj-column>
<mj-text font-size="12px" line-height="1.5" color="${MUTED}" padding="0">${view.footer.map(escapeHtml).join('<br />')}</mj-text>
</mj-column></mj-section>
</mj-body>
</mjml>`;
}

function leadOf(lead: string[]): string[] {
  return lead.map((sentence) => `<mj-text>${escapeHtml(sentence)}</mj-text>`);
}

function actionsOf(actions: EmailView['actions'], color: string): string[] {
  return actions.map(
    (action) =>
      `<mj-button href="${escapeHtml(action.href)}" background-color="${color}" color="#ffffff" font-size="15px" font-weight="600" border-radius="6px" align="left" inner-padding="10px 18px" padding="4px 0 8px 0">${escapeHtml(action.label)}</mj-button>`,
  );
}

const caption = (text: string) => `<div style="font-size:13px;color:${MUTED};margin:0 0 4px 0">${text}</div>`;

function blockOf(block: Block, color: string): string {
  switch (block.type) {
    case 'bar':
      return `<mj-text padding="4px 0 16px 0">${barOf(block, color)}</mj-text>`;
    case 'spark':
      return `<mj-text padding="4px 0 16px 0">${sparkOf(block, color)}</mj-text>`;
    case 'table': {
      const rows = block.rows
        .map(
          ([label, value]) =>
            `<tr><td style="padding:6px 12px 6px 0;color:${MUTED};vertical-align:top;width:38%;border-bottom:1px solid ${TRACK}">${escapeHtml(label)}</td>` +
            `<td class="cell" style="padding:6px 0;vertical-align:top;border-bottom:1px solid ${TRACK}">${escapeHtml(value)}</td></tr>`,
        )
        .join('');
      const title = block.title
        ? `<mj-text font-weight="700" padding="4px 0 4px 0">${escapeHtml(block.title)}</mj-text>`
        : '';
      return `${title}<mj-table font-size="14px" line-height="1.4" padding="0 0 16px 0" table-layout="fixed">${rows}</mj-table>`;
    }
    case 'commands': {
      const items = block.items
        .map(
          (item) =>
            `<div style="font-size:13px;color:${MUTED};margin:8px 0 4px 0">${escapeHtml(item.label)}</div>` +
            `<div class="cmd" style="font-family:${MONO};font-size:13px;line-height:1.5;background:#f3f4f6;border:1px solid ${TRACK};border-radius:4px;padding:8px 10px;color:#111827">${escapeHtml(item.command)}</div>`,
        )
        .join('');
      return `<mj-text padding="4px 0 16px 0"><div style="font-weight:700">${escapeHtml(block.title)}</div>${items}</mj-text>`;
    }
    case 'list':
      return `<mj-text padding="4px 0 16px 0"><div style="font-weight:700">${escapeHtml(block.title)}</div><ul style="margin:4px 0 0 0;padding:0 0 0 20px">${block.items
        .map((item) => `<li class="cell">${escapeHtml(item)}</li>`)
        .join('')}</ul></mj-text>`;
    case 'note':
      return `<mj-text font-size="13px" color="${MUTED}">${escapeHtml(block.text)}</mj-text>`;
  }
}

const cell = (width: string, background: string, height: number) =>
  `<td width="${width}" style="width:${width};background:${background};height:${height}px;font-size:0;line-height:0">&nbsp;</td>`;

/** Spend against the amount; past 100 % the bar shows the amount's mark and the overspend in red. */
function barOf(block: BarBlock, color: string): string {
  const height = 14;
  const ratio = Math.max(0, block.ratio);
  let cells: string;
  if (ratio > 1) {
    const within = Math.max(1, Math.round(100 / ratio));
    cells =
      cell(`${within}%`, color, height) +
      cell('2px', '#ffffff', height) +
      cell(`${100 - within}%`, TONE_COLOR.critical, height);
  } else if (ratio === 0) {
    cells = cell('100%', TRACK, height);
  } else {
    const filled = Math.max(1, Math.min(100, Math.round(ratio * 100)));
    cells = cell(`${filled}%`, color, height) + (filled < 100 ? cell(`${100 - filled}%`, TRACK, height) : '');
  }
  return (
    caption(escapeHtml(block.label)) +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;table-layout:fixed;width:100%"><tr>${cells}</tr></table>` +
    `<div style="font-size:14px;margin:4px 0 0 0"><strong>${formatPercent(block.ratio)}</strong> · ${escapeHtml(block.caption)}</div>`
  );
}

/** A bar per bucket, bottom-aligned; idle buckets are muted and unknown ones a dashed baseline. */
function sparkOf(block: SparkBlock, color: string): string {
  const height = 40;
  const width = `${(100 / Math.max(1, block.values.length)).toFixed(2)}%`;
  const bars = block.values
    .map((value) => {
      const inner =
        value === null
          ? `<div style="height:0;border-top:2px dotted #d1d5db;font-size:0;line-height:0"></div>`
          : `<div style="height:${Math.max(2, Math.round((Math.min(100, value) / 100) * height))}px;background:${value <= block.threshold ? '#9ca3af' : color};font-size:0;line-height:0">&nbsp;</div>`;
      return `<td width="${width}" valign="bottom" style="width:${width};height:${height}px;padding:0 1px;vertical-align:bottom">${inner}</td>`;
    })
    .join('');
  return (
    caption(escapeHtml(block.label)) +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;table-layout:fixed;width:100%;border-bottom:1px solid ${TRACK}"><tr>${bars}</tr></table>` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;font-size:12px;color:${MUTED}"><tr><td align="left">${escapeHtml(block.from)}</td><td align="right">${escapeHtml(block.to)}</td></tr></table>`
  );
}
