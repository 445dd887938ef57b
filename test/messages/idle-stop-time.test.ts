import { describe, expect, it } from 'vitest';
import { renderMessage } from '../../src/messages/email.js';
import { ALERTS, firstNotification, NOW } from './fixtures.js';

/**
 * The stop warning names a time the stop cannot come before: the stop waits the lead time after
 * the SMTP server accepted the warning, and a message is accepted no sooner than it is written.
 * So the minute it names is never before the minute of its writing plus the lead time, however
 * late after the warning was decided it is written (group wait, a busy outbox), and never after
 * it either: the stop may come within that minute.
 */
const MIN = 60_000;
const LEAD = 15 * MIN;
const minuteOf = (at: number) => Math.floor(at / MIN) * MIN;

function warning(writtenAt: number, dryRun = false) {
  const base = ALERTS['idle-warn'] as ReturnType<typeof firstNotification>['firing'][number];
  const details = { ...base.details, warnLeadMs: LEAD, warnedAt: NOW - 2 * MIN, stopAt: NOW + 13 * MIN, dryRun };
  return renderMessage({ ...firstNotification({ ...base, details }), now: writtenAt });
}

/** Every HH:MM UTC the text names, as a time on NOW's day. */
const namedTimes = (text: string) =>
  [...text.matchAll(/\b(\d\d):(\d\d) UTC/g)].map((m) => Date.UTC(2026, 10, 2, Number(m[1]), Number(m[2])));

describe('the time a stop warning names', () => {
  for (const late of [0, 4 * MIN + 5_000, 20 * MIN]) {
    it(`is no earlier than the lead time after the mail, written ${late / 1000}s after the tick`, () => {
      const writtenAt = NOW + late;
      const message = warning(writtenAt);
      const [subjectTime] = namedTimes(message.subject);
      expect(subjectTime).toBeDefined();
      expect(subjectTime).toBe(minuteOf(writtenAt + LEAD));
      expect(message.subject).toContain('or later');
      expect(message.text).toContain('never sooner than 15m after this mail reaches you');
      const row = /Stops, at the earliest\s+\w{3} \d+ \w{3}, (\d\d):(\d\d) UTC/.exec(message.text);
      expect(row).not.toBeNull();
      expect(Date.UTC(2026, 10, 2, Number(row?.[1]), Number(row?.[2]))).toBe(minuteOf(writtenAt + LEAD));
    });
  }

  it('says the same in dry run', () => {
    const message = warning(NOW + 4 * MIN, true);
    expect(namedTimes(message.subject)[0]).toBe(minuteOf(NOW + 4 * MIN + LEAD));
  });
});
