import type { NotifyAlert } from '../../src/alerts/alert.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import { digestView } from '../../src/messages/digest.js';
import { emailView } from '../../src/messages/email.js';
import { flappingView } from '../../src/messages/flapping.js';
import type { Block, EmailView, Tone } from '../../src/messages/view.js';
import { ALERTS, DIGEST, FLAPPING, firstNotification, resolvedNotification } from './fixtures.js';

/** Every message the fixtures hold, as the view MJML is written from. */
export const FIXTURE_VIEWS: [string, EmailView][] = [
  ...Object.entries(ALERTS).map(([name, alert]): [string, EmailView] => [name, emailView(firstNotification(alert))]),
  ['idle-resolved', emailView(resolvedNotification(ALERTS['idle-notify'] as never))],
  ['flapping', flappingView(FLAPPING)],
  ['digest', digestView(DIGEST)],
  // Several alerts in one message: a section each (after a divider), and the tail's lists.
  ['grouped', emailView(grouped())],
];

function grouped(): Notification {
  const all = Object.values(ALERTS);
  const [first, ...rest] = all;
  const base = firstNotification(first as NotifyAlert);
  return { ...base, firing: all, fresh: rest, resolved: [{ ...(first as NotifyAlert), resolvedAt: base.now }] };
}

/** Contents MJML trims, drops when empty, or that a string replacement would misread. */
export function awkward(view: EmailView): EmailView {
  return {
    ...view,
    subject: `  ${view.subject} $& $1 $$ @@podwarden-slot-0@@ `,
    heading: `\n${view.heading}\t`,
    lead: ['', '   ', ` ${view.lead[0] ?? 'lead'} `, 'a < b & "c" \'d\''],
    actions: [
      { label: ' Keep running ', href: 'https://example.com/a?x=1&y=2' },
      { label: 'Silence', href: '' },
    ],
    blocks: [
      ...view.blocks,
      { type: 'note', text: '   ' },
      { type: 'note', text: ' spaced note ' },
      { type: 'list', title: '', items: [] },
      { type: 'table', rows: [] },
      { type: 'table', title: ' ', rows: [['  k  ', '\nv\n']] },
    ],
    footer: [],
  };
}

const TONES: Tone[] = ['info', 'warning', 'critical', 'resolved'];

/** One block of every type, with contents that are not empty. */
function everyBlock(word: string): Block[] {
  return [
    { type: 'bar', label: `${word} bar`, ratio: 0.42, caption: 'of $100.00' },
    { type: 'spark', label: `${word} spark`, values: [10, null, 90], threshold: 5, from: '09:00', to: '10:00' },
    { type: 'table', title: `${word} table`, rows: [['GPU', 'H100']] },
    { type: 'table', rows: [['Pod', 'abc']] },
    { type: 'commands', title: `${word} commands`, items: [{ label: 'Stop', command: 'podwarden stop x' }] },
    { type: 'list', title: `${word} list`, items: ['one'] },
    { type: 'note', text: `${word} note` },
  ];
}

/** A small deterministic generator (mulberry32), so a failing shape can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Messages of random shapes: any number of leads, actions, blocks and sections, any tones. */
export function randomViews(count: number, seed: number): EmailView[] {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const some = <T>(max: number, make: (i: number) => T): T[] =>
    Array.from({ length: Math.floor(random() * (max + 1)) }, (_, i) => make(i));
  const text = (i: number) => pick(['a', 'Spend & more', '<b> "q" \'s\'', '$& $1', `line ${i}`, 'x'.repeat(300)]);
  const blocks = () => some(6, (i) => pick(everyBlock(text(i))));
  return Array.from({ length: count }, (_, n) => ({
    subject: `subject ${n}`,
    tone: pick(TONES),
    heading: text(n),
    lead: some(3, text),
    actions: some(3, (i) => ({ label: text(i), href: `https://example.com/${i}?a=1&b=2` })),
    blocks: blocks(),
    sections: some(4, (i) => ({ heading: text(i), tone: pick(TONES), lead: some(2, text), blocks: blocks() })),
    footer: some(3, text),
  }));
}
