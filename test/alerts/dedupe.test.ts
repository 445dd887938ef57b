import { describe, expect, it } from 'vitest';
import { describeReason, type LogEntry, type NotifyReason, needsUpdate } from '../../src/alerts/dedupe.js';

const HOUR = 3_600_000;
const NOW = 100 * HOUR;
const REPEAT = 4 * HOUR;

const entry = (firing: number[], resolved: number[] = [], notifiedAt = NOW - HOUR): LogEntry => ({
  firing: new Set(firing),
  resolved: new Set(resolved),
  notifiedAt,
});

const cases: Array<{
  name: string;
  entry: LogEntry | null;
  firing: number[];
  resolved: number[];
  repeat?: number;
  want: NotifyReason;
}> = [
  { name: 'no entry, alerts firing', entry: null, firing: [1], resolved: [], want: 'first' },
  { name: 'no entry, nothing firing', entry: null, firing: [], resolved: [2], want: 'none' },
  { name: 'same firing set, repeat not elapsed', entry: entry([1, 2]), firing: [1, 2], resolved: [], want: 'none' },
  { name: 'one more firing', entry: entry([1]), firing: [1, 2], resolved: [], want: 'new_alerts' },
  { name: 'a new alert while another resolved', entry: entry([1]), firing: [2], resolved: [1], want: 'new_alerts' },
  { name: 'fewer firing, the other resolved', entry: entry([1, 2]), firing: [1], resolved: [2], want: 'new_resolved' },
  { name: 'resolved already announced', entry: entry([1], [2]), firing: [1], resolved: [2], want: 'none' },
  { name: 'every alert resolved', entry: entry([1, 2]), firing: [], resolved: [1, 2], want: 'all_resolved' },
  { name: 'all resolved, already announced', entry: entry([], [1, 2]), firing: [], resolved: [1, 2], want: 'none' },
  { name: 'fewer firing, resolved notices off', entry: entry([1, 2]), firing: [1], resolved: [], want: 'none' },
  { name: 'all gone, resolved notices off', entry: entry([1]), firing: [], resolved: [], want: 'none' },
  {
    name: 'repeat interval elapsed',
    entry: entry([1], [], NOW - REPEAT),
    firing: [1],
    resolved: [],
    want: 'repeat_elapsed',
  },
  {
    name: 'repeat interval nearly elapsed',
    entry: entry([1], [], NOW - REPEAT + 1),
    firing: [1],
    resolved: [],
    want: 'none',
  },
  {
    name: 'a group that never repeats',
    entry: entry([1], [], NOW - 100 * REPEAT),
    firing: [1],
    resolved: [],
    repeat: Number.POSITIVE_INFINITY,
    want: 'none',
  },
  {
    name: 'subset still firing after a long time',
    entry: entry([1, 2], [], NOW - REPEAT),
    firing: [2],
    resolved: [],
    want: 'repeat_elapsed',
  },
];

describe('needsUpdate', () => {
  it.each(cases)('$name → $want', ({ entry: logged, firing, resolved, repeat, want }) => {
    expect(needsUpdate(logged, new Set(firing), new Set(resolved), repeat ?? REPEAT, NOW)).toBe(want);
  });

  it('names every reason in words', () => {
    expect(describeReason('repeat_elapsed')).toBe('repeat interval elapsed');
    expect(describeReason('new_alerts')).toBe('new alerts in group');
  });
});
