import { describe, expect, it } from 'vitest';
import type { DaemonEvents } from '../../src/daemon-events.js';
import { followDaemon } from '../../src/demo/console.js';
import { EventBus } from '../../src/events.js';

/**
 * The demo's console names the guard that held a stop back, and why, as the receipt records it:
 * "a guard held the stop back" alone leaves a newcomer guessing which one.
 */
describe('the demo console', () => {
  it('names every guard that held the stop back, with its reason, and says why a planned stop was cancelled', () => {
    const events = new EventBus<DaemonEvents>();
    const lines: string[] = [];
    const off = followDaemon(events, (line) => lines.push(line));
    const base = { at: Date.UTC(2026, 10, 2, 9, 5), podId: 'nb', account: 'demo', dryRun: true, reason: null };
    events.emit('action:decided', {
      ...base,
      decision: 'blocked',
      held: [{ guard: 'warning_delivered', detail: 'the stop warning has not been delivered: 421 try later' }],
    });
    events.emit('action:decided', {
      ...base,
      decision: 'blocked',
      held: [
        { guard: 'fresh_data', detail: 'Pod collector last succeeded 3m ago (limit 2m)' },
        { guard: 'quiet_hours', detail: 'quiet hours until 2026-11-02T10:00:00Z' },
      ],
    });
    events.emit('action:decided', { ...base, decision: 'cancelled', held: [], reason: 'busy: GPU at 40%' });
    events.emit('action:decided', {
      ...base,
      decision: 'cancelled',
      held: [],
      reason: 'unknown: no Pod poll landed for 3m',
    });
    off();
    expect(lines).toEqual([
      '09:05:00  action  nb@demo not stopped: the warning_delivered guard held the stop back (the stop warning has not been delivered: 421 try later)',
      '09:05:00  action  nb@demo not stopped: the fresh_data guard held the stop back (Pod collector last succeeded 3m ago (limit 2m)); the quiet_hours guard held the stop back (quiet hours until 2026-11-02T10:00:00Z)',
      '09:05:00  action  nb@demo is busy again: the planned stop is cancelled',
      '09:05:00  action  nb@demo cannot be judged: the planned stop is cancelled (unknown: no Pod poll landed for 3m); a new idle spell starts over',
    ]);
  });
});
