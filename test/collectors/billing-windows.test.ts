import { describe, expect, it } from 'vitest';
import { bucketCeil, bucketFloor, nextBucketStart } from '../../src/buckets.js';
import { chunksOf } from '../../src/collectors/billing-windows.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('billing buckets', () => {
  it.each([
    ['hour', '2026-11-04T13:45:10Z', '2026-11-04T13:00:00.000Z', '2026-11-04T14:00:00.000Z'],
    ['day', '2026-11-04T13:45:10Z', '2026-11-04T00:00:00.000Z', '2026-11-05T00:00:00.000Z'],
    // ISO weeks start on Monday: 2026-11-04 is a Wednesday, 2026-11-08 a Sunday.
    ['week', '2026-11-04T13:45:10Z', '2026-11-02T00:00:00.000Z', '2026-11-09T00:00:00.000Z'],
    ['week', '2026-11-08T23:59:59Z', '2026-11-02T00:00:00.000Z', '2026-11-09T00:00:00.000Z'],
    ['month', '2026-12-31T23:00:00Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['month', '2028-02-29T12:00:00Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ['year', '2026-11-04T13:45:10Z', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ] as const)('%s: %s lies in [%s, %s)', (size, time, start, end) => {
    expect(iso(bucketFloor(at(time), size))).toBe(start);
    expect(iso(bucketCeil(at(time), size))).toBe(end);
    expect(iso(nextBucketStart(at(start), size))).toBe(end);
  });

  it('leaves a boundary where it is when rounding up', () => {
    expect(bucketCeil(at('2026-11-02T00:00:00Z'), 'week')).toBe(at('2026-11-02T00:00:00Z'));
    expect(bucketCeil(at('2026-11-01T00:00:00Z'), 'month')).toBe(at('2026-11-01T00:00:00Z'));
  });

  it('cuts a window into aligned chunks of a day, newest first, the last one short', () => {
    const end = at('2026-11-04T13:00:00Z');
    const chunks = chunksOf({ startMs: end - 49 * HOUR, endMs: end }, DAY, 'hour');
    expect(chunks.map((chunk) => (chunk.endMs - chunk.startMs) / HOUR)).toEqual([24, 24, 1]);
    expect(chunks[0]?.endMs).toBe(end);
    expect(chunks.at(-1)?.startMs).toBe(end - 49 * HOUR);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]?.endMs).toBe(chunks[i - 1]?.startMs);
  });

  it('makes a chunk at least one bucket long when buckets are longer than a day', () => {
    const start = at('2026-09-01T00:00:00Z');
    const chunks = chunksOf({ startMs: start, endMs: at('2026-12-01T00:00:00Z') }, DAY, 'month');
    expect(chunks.map((chunk) => iso(chunk.startMs).slice(0, 10))).toEqual(['2026-11-01', '2026-10-01', '2026-09-01']);
    expect(chunksOf({ startMs: start, endMs: start }, DAY, 'month')).toEqual([]);
  });
});
