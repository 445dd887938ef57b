import pieces from './mjml-pieces.json' with { type: 'json' };

/**
 * Email HTML composed from pieces MJML rendered ahead, so a message of a new shape needs no MJML
 * (loading it is most of the first message's cost, about 0.15 s of CPU even lean).
 *
 * A message's MJML is a prologue (head, header section, the main section's opening), the main
 * column's children (one mj-text, mj-button, mj-table or mj-divider each) and a tail. MJML renders
 * each child of a column as a table row of its own, from the child's tag and attributes alone, and
 * writes the prologue and tail from theirs: so the HTML is the prologue's HTML, each child's row
 * and the tail's, one after the other. mjml-pieces.json holds those, keyed by the piece's MJML
 * text with its placeholders numbered from 0, for every piece html.ts writes with placeholder
 * contents; test/messages/html-pieces.test.ts regenerates it from MJML and holds every message
 * composed from it byte-equal to MJML rendering the message itself. A piece it lacks (an empty
 * content MJML drops, a template changed without regenerating) makes the caller render with MJML.
 */

const KNOWN: Readonly<Record<string, string>> = pieces;

const SLOT = /@@podwarden-slot-(\d+)@@/g;

/** Where the main column opens in html.ts's MJML: written there from this constant. */
export const MAIN_COLUMN = 'padding="20px 20px 8px 20px"><mj-column>';
const COLUMN_END = '</mj-column></mj-section>';
/** One child of the column: contents are placeholders or plain text, never a tag of MJML's. */
const CHILD = /<mj-(text|button|table)\b[^>]*>[\s\S]*?<\/mj-\1>|<mj-divider\b[^>]*\/>/g;

/** The message's MJML cut into prologue, children and tail; undefined if it is not of that form. */
export function splitPieces(mjml: string): string[] | undefined {
  const open = mjml.indexOf(MAIN_COLUMN);
  if (open < 0) return undefined;
  const start = open + MAIN_COLUMN.length;
  const end = mjml.indexOf(COLUMN_END, start);
  if (end < 0) return undefined;
  const region = mjml.slice(start, end);
  const out = [mjml.slice(0, start)];
  let last = 0;
  for (const match of region.matchAll(CHILD)) {
    if (region.slice(last, match.index).trim() !== '') return undefined;
    out.push(match[0]);
    last = match.index + match[0].length;
  }
  if (region.slice(last).trim() !== '') return undefined;
  out.push(mjml.slice(end));
  return out;
}

/** A piece with its placeholders numbered from 0, and the message's number for each. */
export function pieceKey(piece: string): { key: string; slots: string[] } {
  const slots: string[] = [];
  const key = piece.replace(SLOT, (_, n: string) => `@@podwarden-slot-${slots.push(n) - 1}@@`);
  return { key, slots };
}

/** The HTML MJML writes for the message's MJML (placeholders kept), or undefined if a piece is unknown. */
export function composeHtml(mjml: string): string | undefined {
  const split = splitPieces(mjml);
  if (split === undefined) return undefined;
  let html = '';
  for (const piece of split) {
    const { key, slots } = pieceKey(piece);
    const known = KNOWN[key];
    if (known === undefined) return undefined;
    html += known.replace(SLOT, (_, n: string) => `@@podwarden-slot-${slots[Number(n)]}@@`);
  }
  return html;
}

/**
 * The pieces of the given messages' MJML (with placeholder contents), each rendered by `mjml`:
 * the prologue, children and tail of one message go in one document, with a raw marker between
 * every two, and MJML's HTML is cut at the markers. How mjml-pieces.json is made.
 */
export function renderPieces(messages: string[], mjml: (source: string) => string): Record<string, string> {
  const CUT = '@@podwarden-cut@@';
  const out: Record<string, string> = {};
  for (const message of messages) {
    const split = splitPieces(message);
    if (split === undefined) throw new Error('renderPieces: a message not of the prologue-children-tail form');
    const keys = split.map((piece) => pieceKey(piece).key);
    const [prologue, ...rest] = keys;
    const tail = rest.pop() as string;
    const source = `${prologue}\n${rest.map((child) => `<mj-raw>${CUT}</mj-raw>\n${child}\n`).join('')}<mj-raw>${CUT}</mj-raw>\n${tail}`;
    const cut = mjml(source).split(CUT);
    if (cut.length !== keys.length) throw new Error(`renderPieces: ${cut.length} pieces of HTML for ${keys.length}`);
    keys.forEach((key, i) => {
      out[key] = cut[i] as string;
    });
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
