import { describe, expect, it } from 'vitest';
import { amountsOf } from '../../src/collectors/billing-amounts.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** What the collector stored before amounts were remembered: every *Amount number, stringified. */
function stringified(record: Record<string, unknown>): string {
  const amounts: Record<string, number> = {};
  for (const field in record) {
    const value = record[field];
    if (typeof value === 'number' && field.endsWith('Amount')) amounts[field] = value;
  }
  return JSON.stringify(amounts);
}

describe('amountsOf', () => {
  it('gives the text JSON.stringify gives, over repeated, new and reordered amounts, past the bound of what it keeps', () => {
    const random = seededRandom(12);
    const rates = Array.from({ length: 40 }, () => Math.round(random() * 1e6) / 1e6);
    const fieldSets = [
      ['totalAmount', 'gpuAmount', 'cpuAmount', 'diskAmount'],
      ['totalAmount', 'diskAmount', 'gpuAmount', 'cpuAmount'],
      ['totalAmount', 'gpuAmount', 'cpuAmount', 'diskAmount', 'feeAmount'],
      ['totalAmount', 'standardAmount', 'highPerformanceAmount'],
    ];
    let checked = 0;
    // 6,000 records of few distinct amounts, then 6,000 of (nearly) all distinct ones.
    for (const distinct of [false, true]) {
      for (let i = 0; i < 6_000; i++) {
        const fields = fieldSets[Math.floor(random() * fieldSets.length)] as string[];
        const record: Record<string, unknown> = { startTime: '2026-01-01T00:00:00Z', podId: `pod${i % 50}` };
        for (const field of fields) {
          const pick = rates[Math.floor(random() * 3)] as number;
          record[field] = distinct ? Math.round(random() * 1e9) / 1e7 : pick;
        }
        record.note = 'notAnAmount';
        const { amounts, text } = amountsOf(JSON.parse(JSON.stringify(record)) as Record<string, unknown>);
        expect(text).toBe(stringified(record));
        expect(JSON.stringify(amounts)).toBe(text);
        checked++;
      }
    }
    expect(checked).toBe(12_000);
  });

  it('hands the same object back for equal amounts, and tells -0, field order and extra fields apart', () => {
    const first = amountsOf({ totalAmount: 0.44, gpuAmount: 0.4, cpuAmount: 0.04, podId: 'a' });
    const again = amountsOf({ podId: 'b', totalAmount: 0.44, gpuAmount: 0.4, cpuAmount: 0.04 });
    expect(again).toBe(first);
    const reordered = amountsOf({ totalAmount: 0.44, cpuAmount: 0.04, gpuAmount: 0.4 });
    expect(reordered.text).toBe('{"totalAmount":0.44,"cpuAmount":0.04,"gpuAmount":0.4}');
    const more = amountsOf({ totalAmount: 0.44, gpuAmount: 0.4, cpuAmount: 0.04, feeAmount: 0 });
    expect(more.text).toBe('{"totalAmount":0.44,"gpuAmount":0.4,"cpuAmount":0.04,"feeAmount":0}');
    const zero = amountsOf({ totalAmount: 0, gpuAmount: 0 });
    const negativeZero = amountsOf({ totalAmount: -0, gpuAmount: 0 });
    expect(negativeZero).not.toBe(zero);
    expect(Object.is(negativeZero.amounts.totalAmount, -0)).toBe(true);
    expect(negativeZero.text).toBe('{"totalAmount":0,"gpuAmount":0}');
    expect(amountsOf({ podId: 'x' }).text).toBe('{}');
  });
});
