import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { consumeBillingText, parseBillingBody } from '../../src/api/billing-parse.js';
import { ApiError } from '../../src/api/errors.js';
import { parseBody } from '../../src/api/parse.js';
import { ListNetworkVolumeBillingResponse, ListPodBillingResponse } from '../../src/api/schemas.js';

const OP = 'GET /billing/pods';

function podPage(records: Array<Record<string, unknown>>) {
  return {
    records,
    metadata: {
      query: { startTime: '2026-03-01T00:00:00Z', endTime: '2026-03-01T02:00:00Z', bucketSize: 'hour', podId: null },
      recordCount: records.length,
      totals: { totalAmount: 3, gpuAmount: 2, cpuAmount: 0.5, diskAmount: 0.5 },
      uniquePodCount: 1,
      nextField: 'kept',
    },
  };
}

function podRecord(hour: number, overrides: Record<string, unknown> = {}) {
  return {
    startTime: `2026-03-01T0${hour}:00:00Z`,
    endTime: `2026-03-01T0${hour + 1}:00:00Z`,
    podId: 'pod-a',
    totalAmount: 1.5,
    gpuAmount: 1,
    cpuAmount: 0.25,
    diskAmount: 0.25,
    storageAmount: 0,
    ...overrides,
  };
}

function zodError(body: unknown): string {
  try {
    parseBody(ListPodBillingResponse, body, OP);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('zod accepted the body');
}

describe('billing answers parsed by hand', () => {
  it('gives what the zod schema gives for a valid answer, unknown fields included, without copying the records', () => {
    const body = podPage([podRecord(0), podRecord(1)]);
    const parsed = parseBillingBody(ListPodBillingResponse, body, OP);
    expect(isDeepStrictEqual(parsed, ListPodBillingResponse.parse(body))).toBe(true);
    expect(parsed.records[1]).toBe(body.records[1]);
    expect(parsed.records[0]).toMatchObject({ storageAmount: 0 });
  });

  it.each([
    ['an amount as a string', { gpuAmount: '1' }],
    ['a missing id', { podId: undefined }],
    ['a time that is not RFC 3339', { startTime: '2026-03-01 00:00' }],
    ['a day that does not exist', { startTime: '2026-02-30T00:00:00Z' }],
  ])('rejects %s with the error the schema names, field path and all', (_name, overrides) => {
    const body = podPage([podRecord(0), podRecord(1, overrides)]);
    const expected = zodError(body);
    expect(expected).toContain('records[1]');
    expect(() => parseBillingBody(ListPodBillingResponse, body, OP)).toThrow(expected);
  });

  it('remembers only times that passed, however many it has seen', () => {
    const hours = Array.from({ length: 10_050 }, (_, n) => {
      const start = new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString().replace('.000', '');
      return podRecord(0, { startTime: start });
    });
    expect(parseBillingBody(ListPodBillingResponse, podPage(hours), OP).records).toHaveLength(10_050);
    for (let round = 0; round < 2; round++) {
      const body = podPage([...hours.slice(-3), podRecord(1, { endTime: '2026-02-29T00:00:00Z' })]);
      expect(() => parseBillingBody(ListPodBillingResponse, body, OP)).toThrow(/records\[3\]\.endTime/);
    }
  });

  it('hands lower-case times to the schema, which upper-cases them as for every other route', () => {
    const body = podPage([podRecord(0, { startTime: '2026-03-01t00:00:00z' })]);
    expect(parseBillingBody(ListPodBillingResponse, body, OP).records[0]?.startTime).toBe('2026-03-01T00:00:00Z');
  });

  it('checks the fields of the route it parses (a network volume record needs networkVolumeId)', () => {
    const body = podPage([podRecord(0)]);
    expect(() => parseBillingBody(ListNetworkVolumeBillingResponse, body, 'GET /billing/network-volumes')).toThrow(
      /records\[0\]\.(networkVolumeId|standardAmount)/,
    );
  });

  it('reads a streamed answer with a repeated key as JSON.parse does, the last one, in records and metadata', async () => {
    const page = podPage([podRecord(0), podRecord(1)]);
    const record = JSON.stringify(podRecord(0)).replace('"totalAmount":1.5', '"totalAmount":9,"totalAmount":1.5');
    const text = JSON.stringify(page)
      .replace(JSON.stringify(podRecord(0)), record)
      .replace('"metadata":', '"metadata":{"recordCount":"wrong"},"metadata":');
    const expected = parseBody(ListPodBillingResponse, JSON.parse(text), OP);
    for (const raw of [false, true]) {
      const records: unknown[] = [];
      const sink = raw
        ? {
            records: () => {},
            texts: (texts: string[]) => {
              records.push(
                ...texts.map((item) => parseBody(ListPodBillingResponse.shape.records.element, JSON.parse(item), OP)),
              );
            },
          }
        : {
            records: (batch: unknown[]) => {
              records.push(...batch);
            },
          };
      const metadata = await consumeBillingText(ListPodBillingResponse, sink, pieces(text), OP);
      expect(records).toEqual(expected.records);
      expect(metadata).toEqual(expected.metadata);
    }
  });

  it('rejects a streamed answer naming records twice, naming the field', async () => {
    const text = JSON.stringify(podPage([podRecord(0)])).replace('"metadata":', '"records":[],"metadata":');
    const error = await consumeBillingText(ListPodBillingResponse, { records: () => {} }, pieces(text), OP).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'contract' });
    expect((error as Error).message).toContain('records is named twice');
  });
});

async function* pieces(text: string): AsyncGenerator<string> {
  for (let at = 0; at < text.length; at += 7) yield text.slice(at, at + 7);
}
