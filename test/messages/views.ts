import type { NotifyAlert } from '../../src/alerts/alert.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import { digestView } from '../../src/messages/digest.js';
import { emailView } from '../../src/messages/email.js';
import { flappingView } from '../../src/messages/flapping.js';
import type { EmailView } from '../../src/messages/view.js';
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
