import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatClock,
  formatDateTime,
  formatElapsed,
  formatPercent,
  formatUsd,
  formatUsdPerHour,
  shellCommand,
} from '../src/format.js';

describe('numbers as a person reads them', () => {
  it.each([
    [1234.5, '$1,234.50'],
    [0.6763013698630136, '$0.68'],
    [0.0042, '$0.0042'],
    [0, '$0.00'],
  ])('money %s → %s', (amount, text) => expect(formatUsd(amount)).toBe(text));

  it('rates', () => expect(formatUsdPerHour(38.5)).toBe('$38.50/h'));

  it.each([
    [0.41, '41%'],
    [1.0084, '101%'],
    [0.004, '<1%'],
    [0, '0%'],
  ])('ratio %s → %s', (ratio, text) => expect(formatPercent(ratio)).toBe(text));

  it.each([
    [104_997, '1m 44s'],
    [6_300_000, '1h 45m'],
    [3_600_000, '1h'],
    [2 * 86_400_000 + 3 * 3_600_000 + 59_000, '2d 3h'],
    [86_400_000 + 30_000, '1d'],
    [45_000, '45s'],
    [400, '0s'],
  ])('duration %s ms → %s', (ms, text) => expect(formatElapsed(ms)).toBe(text));

  it.each([
    [903_000_000, '903 MB'],
    [3_703_000_000, '3.70 GB'],
    [999_600_000, '1.00 GB'],
    [12_500, '12.5 kB'],
    [512, '512 bytes'],
  ])('size %s bytes → %s', (bytes, text) => expect(formatBytes(bytes)).toBe(text));

  it('times carry their zone', () => {
    const at = Date.UTC(2026, 10, 2, 16, 30);
    expect(formatClock(at, 'UTC')).toBe('16:30 UTC');
    expect(formatClock(at, 'Europe/Berlin')).toBe('17:30 CET');
    expect(formatDateTime(at, 'UTC')).toBe('Mon 2 Nov, 16:30 UTC');
  });
});

describe('commands that survive a copy and paste', () => {
  it('quotes only what needs it, and a shell reads back the same arguments', () => {
    const args = ['podwarden', 'silence', 'add', '--match', 'gpu_type_id=NVIDIA H200', '--comment', "it's known"];
    const line = shellCommand(args);
    expect(line).toBe(`podwarden silence add --match 'gpu_type_id=NVIDIA H200' --comment 'it'\\''s known'`);
    const echoed = execFileSync('sh', ['-c', `printf '%s\\n' ${line.replace(/^podwarden /, '')}`], {
      encoding: 'utf8',
    });
    expect(echoed.trimEnd().split('\n')).toEqual(args.slice(1));
  });
});
