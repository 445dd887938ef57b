import { formatPercent, formatSparkline, formatTextBar } from '../format.js';
import type { AlertView, Block, EmailView } from './view.js';

/**
 * The plain-text part: it must read well on its own (many people read mail as text, and the
 * text is what a notification preview shows). Labels are padded into columns; commands stand on
 * their own indented line, so a triple click selects exactly the command.
 */
export function renderText(view: EmailView): string {
  const lines: string[] = [view.heading, '', ...paragraphs(view.lead)];
  // Right under the lead, each URL on its own line (it is long: a signed token), like a command.
  if (view.actions.length > 0) {
    lines.push(...view.actions.flatMap((action) => [`${action.label}:`, `  ${action.href}`]), '');
  }
  for (const block of view.blocks) lines.push(...blockLines(block), '');
  for (const section of view.sections) {
    lines.push(`── ${section.headline}`, '', ...paragraphs(section.lead));
    for (const block of section.blocks) lines.push(...blockLines(block), '');
  }
  lines.push('--', ...view.footer);
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}

/** One alert's lead and details without heading or footer (an Alertmanager description, a digest entry). */
export function renderAlertText(view: Pick<AlertView, 'lead' | 'blocks'>): string {
  const lines = paragraphs(view.lead);
  for (const block of view.blocks) lines.push(...blockLines(block), '');
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** "the form…" → "The form…": a phrase made to follow a colon, starting a sentence. */
export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function paragraphs(text: string[]): string[] {
  return text.length === 0 ? [] : [text.join(' '), ''];
}

function columns(rows: [string, string][], indent = ''): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`);
}

function blockLines(block: Block): string[] {
  switch (block.type) {
    case 'bar':
      return [`${block.label}: ${formatTextBar(block.ratio, 30)} ${formatPercent(block.ratio)}  ${block.caption}`];
    case 'spark':
      return [
        `${block.label}: ${formatSparkline(block.values)}`,
        `${' '.repeat(block.label.length + 2)}${block.from} … ${block.to} (· = no data)`,
      ];
    case 'table':
      return [...(block.title ? [block.title] : []), ...columns(block.rows, block.title ? '  ' : '')];
    case 'commands':
      return [block.title, ...block.items.flatMap((item) => [`  ${item.label}:`, `    ${item.command}`])];
    case 'list':
      return [block.title, ...block.items.map((item) => `  - ${item}`)];
    case 'note':
      return [block.text];
  }
}
