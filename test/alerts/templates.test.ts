import { describe, expect, it } from 'vitest';
import type { NotifyAlert } from '../../src/alerts/alert.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import { renderMessage, SUBJECT_MAX } from '../../src/messages/email.js';

const T = Date.UTC(2026, 10, 2, 10, 0, 0);

/** Details without a `kind` (written by an older podwarden): the message falls back to the summary. */
const alert = (id: number, severity: string, summary: string, resolvedAt: number | null = null): NotifyAlert => ({
  id,
  key: `waste:sim:check:${id}`,
  rule: 'waste',
  account: 'sim',
  severity,
  summary,
  labels: { rule: 'waste', account: 'sim' },
  details: { costPerDay: 16.56, drivers: ['Pod a: $1.00', 'Pod b: $2.00'] },
  recipients: ['ops@example.com'],
  firedAt: T - 3_600_000,
  resolvedAt,
});

function notification(overrides: Partial<Notification>): Notification {
  return {
    groupKey: '{}:ops@example.com',
    receiver: ['ops@example.com'],
    reason: 'first',
    firing: [],
    fresh: [],
    resolved: [],
    repeatIntervalMs: 4 * 3_600_000,
    now: T,
    ...overrides,
  };
}

const subjectOf = (overrides: Partial<Notification>) => renderMessage(notification(overrides)).subject;

describe('templates', () => {
  it('make subjects from the most severe alert’s headline, saying how many more', () => {
    const info = alert(1, 'info', 'Endpoint sdxl idle, $16.56/day');
    const critical = alert(2, 'critical', 'Budget gpu: live spend $512.00 crossed 100% of $500.00');
    expect(subjectOf({ fresh: [info, critical], firing: [info, critical] })).toBe(
      '[sim] Budget gpu: live spend $512.00 crossed 100% of $500.00 (+1 more)',
    );
    expect(subjectOf({ reason: 'repeat_elapsed', firing: [info] })).toBe('[sim] Still: Endpoint sdxl idle, $16.56/day');
    expect(subjectOf({ reason: 'all_resolved', resolved: [alert(3, 'info', 'Volume x unmounted', T)] })).toBe(
      '[sim] Resolved: Volume x unmounted',
    );
  });

  it('cut a long subject to the limit with an ellipsis', () => {
    const long = alert(1, 'warning', `Pod ${'x'.repeat(200)} idle`);
    const subject = subjectOf({ fresh: [long], firing: [long] });
    expect(subject).toHaveLength(SUBJECT_MAX);
    expect(subject.endsWith('…')).toBe(true);
  });

  it('never dump raw detail fields, and escape what HTML would read', () => {
    const hostile = alert(1, 'warning', 'Pod <script>alert(1)</script> idle, $1.00/h');
    const done = alert(2, 'info', 'Volume x unmounted, $35.00/month', T - 60_000);
    const message = renderMessage(
      notification({ reason: 'new_alerts', fresh: [hostile], firing: [hostile], resolved: [done] }),
    );
    expect(message.text).toContain('Pod <script>alert(1)</script> idle, $1.00/h');
    expect(message.text).toContain('Resolved since the last message (1)\n  - Volume x unmounted, $35.00/month');
    expect(message.text).not.toContain('costPerDay');
    expect(message.html).toContain('Pod &#60;script&#62;alert(1)&#60;/script&#62; idle');
    expect(message.html).not.toContain('<script>');
    expect(message.html).not.toContain('costPerDay');
  });

  it('say when a resolved alert ended and how long it lasted, and what still fires', () => {
    const firing = alert(1, 'warning', 'Pod a idle, $1.00/h');
    const done = alert(2, 'info', 'Volume x unmounted, $35.00/month', T - 60_000);
    const { text } = renderMessage(notification({ reason: 'new_resolved', firing: [firing], resolved: [done] }));
    expect(text).toContain('1 resolved alert, 1 more still firing');
    expect(text).toContain('over since Mon 2 Nov, 09:59 UTC, after 59m');
    expect(text).toContain('Still firing (1)\n  - Pod a idle, $1.00/h');
  });

  it('keep a message of hundreds of alerts readable: a section for the first, one line for the next, a count for the rest', () => {
    const many = Array.from({ length: 250 }, (_, i) =>
      alert(i + 1, 'warning', `Volume v${i + 1} unmounted for 9 days`),
    );
    const { text, html } = renderMessage(notification({ fresh: many, firing: many }));
    expect(text).toContain('250 new alerts');
    expect(text.match(/^── Volume v\d+ /gm)).toHaveLength(20);
    expect(text).toContain('  - Volume v200 unmounted for 9 days');
    expect(text).not.toContain('Volume v201 ');
    expect(text).toContain('… and 50 more');
    expect(html).toContain('… and 50 more');
  });
});
