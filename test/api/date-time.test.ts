import { describe, expect, it } from 'vitest';
import { parseBody } from '../../src/api/parse.js';
import { DateTime } from '../../src/api/schemas/common.js';

/** What the schema makes of a value: the stored form, or the contract error a person reads. */
function outcome(value: unknown): string {
  try {
    return `ok ${parseBody(DateTime, value, 'GET /x')}`;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('DateTime: RFC 3339 with Z or a numeric offset (the document’s format: date-time)', () => {
  it.each([
    ['2026-11-02T09:00:00Z', '2026-11-02T09:00:00Z'],
    ['2026-11-02t09:00:00z', '2026-11-02T09:00:00Z'],
    ['2026-11-02t09:00:00Z', '2026-11-02T09:00:00Z'],
    ['2026-11-02T09:00:00z', '2026-11-02T09:00:00Z'],
    ['2026-11-02T09:00:00.5+01:00', '2026-11-02T09:00:00.5+01:00'],
    ['2026-11-02t09:00:00.123456789-23:59', '2026-11-02T09:00:00.123456789-23:59'],
    ['2026-11-02T23:59:59+00:00', '2026-11-02T23:59:59+00:00'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z'],
    ['2026-12-31T00:00:00Z', '2026-12-31T00:00:00Z'],
  ])('accepts %j, stored as %j', (value, stored) => {
    expect(outcome(value)).toBe(`ok ${stored}`);
  });

  it.each([
    '2026-11-02 09:00:00Z',
    '2026-11-02T09:00Z',
    '2026-11-02T09:00:00',
    '2026-11-02T09:00:00+0100',
    '2026-11-02T09:00:00+01',
    '2026-11-02T09:00:00+24:00',
    '2026-11-02T09:00:00+01:60',
    '2026-11-02T24:00:00Z',
    '2026-11-02T09:60:00Z',
    '2026-11-02T09:00:60Z',
    '2026-11-02T09:00:00.Z',
    '2026-11-02T09:00:00ZZ',
    '2026-11-02T09:00:00Zz',
    '2026-11-02T09:00:00z+01:00',
    '2026-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-11-31T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '26-11-02T09:00:00Z',
    '+002026-11-02T09:00:00Z',
    ' 2026-11-02T09:00:00Z',
    '2026-11-02T09:00:00Z ',
    '2026-11-02T09:00:00Z\n',
    '2026-11-02X09:00:00Z',
    '2026-11-02T09:00:00UTC',
    '2026-11-02T09:00:00GMT',
    '２０２６-11-02T09:00:00Z',
    '2026-11-02',
    '',
  ])('refuses %j, naming what it expected', (value) => {
    expect(outcome(value)).toBe(
      `GET /x: response body: expected an RFC 3339 date-time, received ${JSON.stringify(value)}`,
    );
  });

  it.each([
    [1_762_074_000_000, 'GET /x: response body: expected string, received number'],
    [null, 'GET /x: response body: expected string, received null'],
    [undefined, 'GET /x: response body: missing, expected string'],
  ])('refuses %j, which is no string', (value, message) => {
    expect(outcome(value)).toBe(message);
  });
});
