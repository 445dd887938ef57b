import { createHash } from 'node:crypto';

/**
 * The pages' one stylesheet, served from its own route so the Content-Security-Policy can forbid
 * inline styles. Its URL carries a hash of its content: cached forever, changed on every edit.
 * Mobile first: cards and wrapping lines instead of wide tables, so nothing scrolls sideways on a
 * 360 px phone.
 */
const CSS = `
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f3f4f6; --card: #fff;
  --info: #2563eb; --warning: #b45309; --critical: #b91c1c; --ok: #15803d; --range: #93c5fd; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.45;
  font: 15px/1.45 -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 960px; margin: 0 auto; padding: 12px; }
header.top { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 12px; margin: 4px 0 12px; }
header.top h1 { font-size: 20px; margin: 0; }
header.top a { color: inherit; text-decoration: none; }
.muted, .meta { color: var(--muted); font-size: 13px; }
a { color: var(--info); }
h2 { font-size: 16px; margin: 0 0 8px; }
section.card { background: var(--card); border-radius: 8px; padding: 14px; margin: 0 0 12px;
  border-top: 3px solid var(--line); }
section.card.warning { border-top-color: var(--warning); }
section.card.critical { border-top-color: var(--critical); }
.banner { border-radius: 8px; padding: 10px 14px; margin: 0 0 12px; background: #fef3c7; color: #78350f; }
.banner.bad { background: #fee2e2; color: #7f1d1d; }
.banner.good { background: #dcfce7; color: #14532d; }
ul.items { list-style: none; margin: 0; padding: 0; }
ul.items > li { padding: 10px 0; border-top: 1px solid var(--line); overflow-wrap: anywhere; }
ul.items > li:first-child { border-top: 0; padding-top: 0; }
.row { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 2px 12px; }
.name { font-weight: 600; overflow-wrap: anywhere; }
.tag { display: inline-block; font-size: 12px; font-weight: 600; padding: 0 6px; border-radius: 4px;
  background: var(--line); color: var(--fg); white-space: nowrap; }
.tag.warning { background: #fef3c7; color: #78350f; }
.tag.critical { background: #fee2e2; color: #7f1d1d; }
.tag.ok { background: #dcfce7; color: #14532d; }
.tag.info { background: #dbeafe; color: #1e3a8a; }
svg.bar { display: block; width: 100%; height: 14px; margin: 6px 0 2px; }
svg.bar .track { fill: var(--line); }
svg.bar .range { fill: var(--range); }
svg.bar .spent { fill: var(--info); }
svg.bar .spent.over { fill: var(--critical); }
svg.bar .limit { fill: var(--fg); }
svg.spark { display: block; width: 100%; max-width: 640px; height: 48px; margin: 6px 0;
  background: #f9fafb; border-bottom: 1px solid var(--line); }
svg.spark.small { height: 28px; max-width: 320px; }
svg.spark .idle { fill: #9ca3af; }
svg.spark .active { fill: var(--info); }
svg.spark .unknown { fill: #fecaca; }
svg.spark .threshold { stroke: var(--warning); stroke-width: 1; stroke-dasharray: 4 3; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 12px; }
.key { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.key.idle { background: #9ca3af; } .key.active { background: var(--info); } .key.unknown { background: #fecaca; }
form.inline { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 8px 0 0; }
button, select, input { font: inherit; }
button { background: var(--info); color: #fff; border: 0; border-radius: 6px; padding: 8px 14px; cursor: pointer;
  min-height: 40px; }
button.secondary { background: #fff; color: var(--info); border: 1px solid var(--info); }
select, input[type=password] { padding: 7px 8px; border: 1px solid #d1d5db; border-radius: 6px; min-height: 40px;
  max-width: 100%; }
.question { font-size: 20px; font-weight: 700; margin: 0 0 8px; overflow-wrap: anywhere; }
details { margin: 6px 0 0; font-size: 13px; }
summary { color: var(--info); cursor: pointer; }
ul.commands { margin: 4px 0 0; padding-left: 18px; }
code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f3f4f6;
  padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
.guards { margin: 4px 0 0; padding-left: 18px; font-size: 13px; }
.guards .fail { color: var(--critical); }
table.kv { border-collapse: collapse; width: 100%; font-size: 14px; }
table.kv td { padding: 3px 8px 3px 0; vertical-align: top; overflow-wrap: anywhere; }
table.kv td:first-child { color: var(--muted); white-space: nowrap; width: 1%; }
footer { color: var(--muted); font-size: 12px; padding: 8px 0 24px; }
@media (min-width: 760px) { main { padding: 20px; } .cols { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
  .cols > section.card { margin: 0 0 12px; } }
`;

export const STYLESHEET = CSS.trim();
const HASH = createHash('sha256').update(STYLESHEET).digest('hex').slice(0, 16);
export const STYLESHEET_PATH = '/static/podwarden.css';
/** What pages link to: the path plus the content's hash, so a cached old stylesheet is never used. */
export const STYLESHEET_URL = `${STYLESHEET_PATH}?v=${HASH}`;
export const STYLESHEET_HASH = HASH;
