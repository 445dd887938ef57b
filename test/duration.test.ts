import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../src/duration.js';

describe('parseDuration', () => {
  it.each([
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['6h', 21_600_000],
    ['2d', 172_800_000],
    ['1w', 604_800_000],
    ['1h30m', 5_400_000],
    ['-2d', -172_800_000],
    ['250ms', 250],
    ['0s', 0],
    ['1.5h', 5_400_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '5', '5x', 'h', '1h-30m', 'ten minutes', '--1h'])('rejects %j with a message naming it', (text) => {
    expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
  });
});

describe('formatDuration', () => {
  it('round-trips', () => {
    for (const text of ['1h30m', '2d', '90s', '-6h', '1d2h3m4s']) {
      expect(parseDuration(formatDuration(parseDuration(text)))).toBe(parseDuration(text));
    }
    expect(formatDuration(5_400_000)).toBe('1h30m');
  });
});
