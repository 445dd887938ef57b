/**
 * Slack's limits on what one message may hold (api.slack.com/reference/block-kit), and text made
 * to fit them: shortened at a word boundary, never in the middle of a word; lists summarised.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  sectionText: 3000,
  headerText: 150,
  buttonText: 75,
  fields: 10,
  fieldText: 2000,
  contextElements: 10,
  /** Buttons in one actions block. */
  actions: 25,
} as const;

/**
 * Slack's mrkdwn gives `&`, `<` and `>` a meaning (links, mentions such as `<!channel>`): text
 * from data is escaped so it reads as written and can mention no one.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link in mrkdwn; its text escaped, its URL as is (ours: signed links, the status page). */
export function mrkdwnLink(url: string, text: string): string {
  return `<${url}|${escapeMrkdwn(text)}>`;
}

/**
 * `text` in at most `max` characters, "…" included: cut at the last whitespace that leaves room
 * for it. A first word longer than `max` alone (nowhere to cut between words) is the one case cut
 * inside a word.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - 1;
  let cut = room;
  while (cut > 0 && !/\s/.test(text.charAt(cut))) cut--;
  const head = cut > 0 ? text.slice(0, cut) : text.slice(0, room);
  return `${head.replace(/[\s,;:·—–-]+$/u, '')}…`;
}

/**
 * `title` and as many of `lines` as fit in `max` characters, one a line; the rest counted in a
 * last line `more(count)`.
 */
export function fitLines(
  title: string,
  lines: readonly string[],
  max: number,
  more: (count: number) => string,
): string {
  const join = (items: readonly string[]) => items.filter((item) => item !== '').join('\n');
  const all = join([title, ...lines]);
  if (all.length <= max) return all;
  for (let shown = lines.length - 1; shown >= 0; shown--) {
    const text = join([title, ...lines.slice(0, shown), more(lines.length - shown)]);
    if (text.length <= max) return text;
  }
  return shorten(join([title, more(lines.length)]), max);
}
