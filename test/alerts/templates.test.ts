import { describe, expect, it } from 'vitest';
import type { NotifyAlert } from '../../src/alerts/alert.js';
import type { Notification } from '../../src/alerts/pipeline.js';
import { renderMessage, subjectOf } from '../../src/alerts/templates.js';

const T = Date.UTC(2026, 10, 2, 10, 0, 0);

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

describe('templates', () => {
  it('make subjects from the most severe alert’s summary, saying how many more', () => {
    const info = alert(1, 'info', 'Endpoint sdxl idle, $16.56/day');
    const critical = alert(2, 'critical', 'Budget gpu: live spend $512.00 crossed 100% of $500.00');
    expect(subjectOf(notification({ fresh: [info, critical], firing: [info, critical] }))).toBe(
      '[podwarden] Budget gpu: live spend $512.00 crossed 100% of $500.00 (+1 more)',
    );
    expect(subjectOf(notification({ reason: 'repeat_elapsed', firing: [info] }))).toBe(
      '[podwarden] Still firing: Endpoint sdxl idle, $16.56/day',
    );
    expect(
      subjectOf(notification({ reason: 'all_resolved', resolved: [alert(3, 'info', 'Volume x unmounted', T)] })),
    ).toBe('[podwarden] Resolved: Volume x unmounted');
  });

  it('write text and HTML bodies with every detail, escaping what HTML would read', () => {
    const hostile = alert(1, 'warning', 'Pod <script>alert(1)</script> idle, $1.00/h');
    const done = alert(2, 'info', 'Volume x unmounted, $35.00/month', T - 60_000);
    const message = renderMessage(
      notification({ reason: 'new_alerts', fresh: [hostile], firing: [hostile], resolved: [done] }),
    );
    expect(message.text).toContain('NEW (1)\n- [warning] Pod <script>alert(1)</script> idle, $1.00/h');
    expect(message.text).toContain('    costPerDay: 16.56\n    drivers:\n      - Pod a: $1.00\n      - Pod b: $2.00');
    expect(message.text).toContain('RESOLVED (1)');
    expect(message.text).toContain('fired 2026-11-02T09:00:00Z, resolved 2026-11-02T09:59:00Z');
    expect(message.text).toContain('podwarden silence add --match key=waste:sim:check:1 --for 2h');
    expect(message.html).toContain('Pod &#60;script&#62;alert(1)&#60;/script&#62; idle');
    expect(message.html).not.toContain('<script>');
    expect(message.html).toContain('<li>Pod b: $2.00</li>');
  });

  it('keep a digest of hundreds of alerts readable: figures for the first, one line for the next, a count for the rest', () => {
    const many = Array.from({ length: 250 }, (_, i) =>
      alert(i + 1, 'warning', `Volume v${i + 1} unmounted for 9 days`),
    );
    const { text, html } = renderMessage(notification({ fresh: many, firing: many }));
    expect(text).toContain('NEW (250)');
    expect(text.match(/costPerDay/g)).toHaveLength(20);
    expect(text).toContain('- [warning] Volume v200 unmounted for 9 days');
    expect(text).not.toContain('Volume v201 ');
    expect(text).toContain('… and 50 more');
    expect(html.match(/costPerDay/g)).toHaveLength(20);
    expect(html).toContain('… and 50 more');
  });
});
