import { describe, expect, it } from 'vitest';
import { type Micros, totalsByHour, usageByBucket, usageByHour } from '../../src/simulator/billing.js';
import type { BillingLine, RatePiece } from '../../src/simulator/pricing.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * Hourly billing replies are written from usageByHour (rows per hour) and `/v2/billing` from
 * totalsByHour (arrays by hour): both must hold exactly what usageByBucket's hourly buckets hold,
 * per resource and for all resources together, whatever order the lines come in.
 */

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 2);

/** Lines of a few resources and fields, with partial hours, runs of whole hours and gaps. */
function randomLines(random: () => number): BillingLine[] {
  const lines: BillingLine[] = [];
  const fields = ['gpuAmount', 'cpuAmount', 'diskAmount'];
  for (let resource = 0; resource < 8; resource++) {
    for (const field of fields) {
      if (random() < 0.3) continue;
      const pieces: RatePiece[] = [];
      let t = START + Math.floor(random() * 5 * HOUR);
      for (let piece = 0; piece < 4; piece++) {
        const length = random() < 0.5 ? Math.floor(random() * 3 * HOUR) : Math.ceil(random() * 6) * HOUR;
        pieces.push({ fromMs: t, toMs: t + length, perHour: random() < 0.2 ? 0 : Math.round(random() * 400) / 100 });
        t += length + (random() < 0.5 ? 0 : Math.floor(random() * 2 * HOUR));
      }
      lines.push({ kind: 'pods', id: `pod-${resource}`, field, pieces });
    }
  }
  return lines;
}

/** usageByBucket's answer as plain data: resource → hour → micros. */
function reference(lines: BillingLine[], perResource: boolean): Record<string, Record<number, Micros>> {
  const out: Record<string, Record<number, Micros>> = {};
  for (const [id, buckets] of usageByBucket(lines, 'hour', perResource)) out[id] = Object.fromEntries(buckets);
  return out;
}

describe('hourly usage without a Map of hours per resource', () => {
  it('usageByHour holds usageByBucket’s hourly rows per resource, with lines in order or shuffled', () => {
    const random = seededRandom(12);
    let rows = 0;
    for (let round = 0; round < 40; round++) {
      const lines = randomLines(random);
      // Every other round, a resource's lines apart from each other (its rows must still be one).
      const ordered = round % 2 === 0 ? lines : [...lines].sort(() => random() - 0.5);
      const wanted = (hour: number) => hour !== START + 3 * HOUR;
      const byHour = usageByHour(ordered, wanted);
      const got: Record<string, Record<number, Micros>> = {};
      for (const [hour, { ids, micros }] of byHour) {
        expect(new Set(ids).size, `one row per resource at ${hour}`).toBe(ids.length);
        ids.forEach((id, i) => {
          got[id] ??= {};
          (got[id] as Record<number, Micros>)[hour] = micros[i] as Micros;
          rows++;
        });
      }
      const expected = reference(lines, true);
      for (const buckets of Object.values(expected)) delete buckets[START + 3 * HOUR];
      for (const id of Object.keys(expected)) if (Object.keys(expected[id] ?? {}).length === 0) delete expected[id];
      expect(got).toEqual(expected);
    }
    expect(rows).toBeGreaterThan(1000);
  });

  it('totalsByHour holds usageByBucket’s hourly sums over all resources, clipped to its span', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 40; round++) {
      const lines = randomLines(random);
      const all = reference(lines, false)[''] ?? {};
      expect(Object.fromEntries(totalsByHour(lines, START - 2 * HOUR, START + 40 * HOUR))).toEqual(all);
      // A span that cuts some hours off both ends keeps only its own.
      const inner = Object.fromEntries(
        Object.entries(all).filter(([hour]) => Number(hour) >= START + 2 * HOUR && Number(hour) < START + 9 * HOUR),
      );
      expect(Object.fromEntries(totalsByHour(lines, START + 2 * HOUR, START + 9 * HOUR))).toEqual(inner);
    }
  });
});
