import { describe, expect, it } from 'vitest';
import { JsonRecordsDecoder, JsonStreamError } from '../../src/api/json-records.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** Feeds `text` in pieces of the given sizes (cycled), as a socket would deliver it. */
function decode(text: string, sizes: number[] = [text.length], raw = false) {
  const decoder = new JsonRecordsDecoder('records', raw);
  const records: unknown[] = [];
  for (let at = 0, n = 0; at < text.length; n++) {
    const size = Math.max(1, sizes[n % sizes.length] as number);
    records.push(...decoder.push(text.slice(at, at + size)));
    at += size;
  }
  return { records, ...decoder.end() };
}

function errorOf(run: () => unknown): JsonStreamError {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonStreamError) return error;
    throw error;
  }
  throw new Error('no error');
}

const tricky = {
  records: [
    { startTime: '2026-03-01T00:00:00Z', podId: 'a "quoted" id', totalAmount: 1.5, nested: { list: [1, [2, {}]] } },
    { podId: 'back\\slash\\', totalAmount: -0.25e-3, note: 'brace } and ] in a string, \\"still a string' },
    { podId: 'unicode ünïcødé 🚀', flags: [true, false, null], empty: '' },
    {},
  ],
  metadata: { query: { startTime: '2026-03-01T00:00:00Z', podId: null }, recordCount: 4, totals: { totalAmount: 1 } },
  after: [1, 2, { x: 'y' }],
  count: 12,
  flag: false,
};

describe('the streaming records decoder', () => {
  it('decodes what JSON.parse decodes, however the text is cut into pieces', () => {
    const text = JSON.stringify(tricky, null, 1);
    for (const sizes of [[text.length], [1], [2, 3, 5, 7], [17], [64, 1]]) {
      const { records, members, sawArray } = decode(text, sizes);
      expect(records, `pieces of ${sizes}`).toEqual(tricky.records);
      expect(members).toEqual({ metadata: tricky.metadata, after: tricky.after, count: 12, flag: false });
      expect(sawArray).toBe(true);
    }
  });

  it('decodes runs of whole records as one, even when braces followed by commas hide in strings and nested objects', () => {
    // Seeded, so a failure repeats.
    const next = seededRandom(7);
    const nasty = ['},{', '}]', '"}', '\\}', '} ,', '{}', ''];
    // Enough records for several of the decoder's blocks (65,536 characters).
    const records = Array.from({ length: 8_000 }, (_, n) => ({
      n,
      s: nasty[n % nasty.length],
      ...(n % 5 === 0 ? { nested: { a: { b: [n, { c: '},' }] } } } : {}),
      ...(n % 11 === 0 ? { list: [{}, {}] } : {}),
    }));
    const body = { records, metadata: { query: { a: '}, ]' }, tail: { x: {} } } };
    for (const space of [undefined, 1, '\t']) {
      const text = JSON.stringify(body, null, space);
      expect(text.length).toBeGreaterThan(3 * 65_536);
      for (let round = 0; round < 6; round++) {
        // A whole answer as one piece, then pieces from a few characters to a few blocks.
        const sizes =
          round === 0 ? [text.length] : Array.from({ length: 20 }, () => 1 + Math.floor(next() * 70 ** (round % 3)));
        const decoded = decode(text, sizes);
        expect(decoded.records, `pieces of ${sizes}`).toEqual(records);
        expect(decoded.members).toEqual({ metadata: body.metadata });
      }
    }
  });

  it('raw, hands out the exact text of every element, flat or nested, however the text is cut', () => {
    const records = [
      ...tricky.records,
      { startTime: '2026-03-01T01:00:00Z', podId: 'x\\', note: '}, {"startTime":"1999"}', totalAmount: 2 },
      { a: 'esc \\" } ] [ {' },
    ];
    const body = { records, metadata: tricky.metadata };
    for (const space of [undefined, 1]) {
      const text = JSON.stringify(body, null, space);
      // Each element's text as it stands in the body, found by where JSON.parse says it ends.
      const expected = records.map((record) =>
        JSON.stringify(record, null, space).replace(/\n/g, `\n${space ? '  ' : ''}`),
      );
      for (const sizes of [[text.length], [1], [2, 3, 5, 7], [17], [64, 1]]) {
        const decoded = decode(text, sizes, true);
        expect(
          decoded.records.map((element) => JSON.parse(element as string)),
          `pieces of ${sizes}`,
        ).toEqual(records);
        if (space === undefined) expect(decoded.records).toEqual(expected);
        expect(decoded.members).toEqual({ metadata: tricky.metadata });
      }
    }
    // A body broken between elements is still refused, naming where.
    expect(errorOf(() => decode('{"records":[{"a":1} {"b":2}]}', undefined, true)).message).toBe(
      `expected ',' or ']' after records[0], found "{\\"b\\":2}]}" (at offset 20)`,
    );
  });

  it('hands each record out as soon as it is complete, and keeps no more text than the one being read', () => {
    const decoder = new JsonRecordsDecoder('records');
    expect(decoder.push('{"metadata":{"a":1},"records":[{"n":1},{"n":')).toEqual([{ n: 1 }]);
    expect(decoder.count).toBe(1);
    expect(decoder.push('2}')).toEqual([{ n: 2 }]);
    expect(decoder.push(',{"n":3}]}')).toEqual([{ n: 3 }]);
    expect(decoder.end()).toEqual({ sawArray: true, members: { metadata: { a: 1 } } });
  });

  it('reads a repeated member, or a repeated key in a record, as JSON.parse does: the last one', () => {
    const text =
      '{"metadata":{"a":1},"records":[{"n":1,"n":2},{"m":{"x":1,"x":[3]}}],"metadata":{"a":2},"count":1,"count":2}';
    const parsed = JSON.parse(text) as { records: unknown[]; metadata: unknown; count: number };
    for (const sizes of [[text.length], [1], [5, 3]]) {
      for (const raw of [false, true]) {
        const { records, members } = decode(text, sizes, raw);
        expect(raw ? records.map((record) => JSON.parse(record as string)) : records).toEqual(parsed.records);
        expect(members).toEqual({ metadata: parsed.metadata, count: parsed.count });
      }
    }
  });

  it('keeps a member named __proto__ as a member, as JSON.parse does, not as the members’ prototype', () => {
    const { members } = decode('{"records":[],"__proto__":{"metadata":{"a":1}}}');
    expect(Object.hasOwn(members, '__proto__')).toBe(true);
    expect(members.metadata).toBeUndefined();
  });

  it('rejects the array named twice: its first records are already handed out, where JSON.parse keeps the last', () => {
    for (const text of ['{"records":[{"n":1}],"records":[{"n":2}]}', '{"records":[],"rec\\u006frds":[]}']) {
      for (const raw of [false, true]) {
        const error = errorOf(() => decode(text, [text.length], raw));
        expect(error.message).toContain('records is named twice');
        expect(error.offset).toBe(text.lastIndexOf('"rec'));
      }
    }
  });

  it('says when the array is missing, so the caller can name the field', () => {
    expect(decode('{"pods":[{"id":"x"}]}')).toMatchObject({ records: [], sawArray: false });
    expect(decode('{"records":[]}')).toMatchObject({ records: [], sawArray: true });
  });

  it('rejects malformed JSON in the middle of the array, naming the record and its offset', () => {
    const text = '{"records":[{"n":1},{"n":2,,},{"n":3}]}';
    const error = errorOf(() => decode(text, [5]));
    expect(error.detail).toMatch(/^records\[1\] is not valid JSON/);
    expect(error.offset).toBe(text.indexOf('{"n":2'));
    expect(error.message).toContain(`at offset ${text.indexOf('{"n":2')}`);
  });

  it('names the malformed record among many completed by one piece, before a later fault of the same piece', () => {
    const records = Array.from({ length: 40 }, (_, n) => `{"n":${n},"s":"x, ] }"}`);
    records[23] = '{"n":23,"s":tru}';
    const text = `{"records":[${records.join(', ')}]}`;
    for (const sizes of [[text.length], [100]]) {
      const error = errorOf(() => decode(text, sizes));
      expect(error.detail, `pieces of ${sizes}`).toMatch(/^records\[23\] is not valid JSON/);
      expect(error.offset).toBe(text.indexOf('{"n":23'));
    }
    // The same piece also lacks a comma further on: the record before it is still the one named.
    const both = text.replace(', {"n":30', ' {"n":30');
    expect(errorOf(() => decode(both.replace('"s":tru}', '"s":true}'))).detail).toMatch(
      /^expected ',' or '\]' after records\[29\]/,
    );
    expect(errorOf(() => decode(both)).detail).toMatch(/^records\[23\] is not valid JSON/);
    const good = `{"records":[${records.map((_, n) => `{"n":${n}}`).join(',')}]}`;
    expect(decode(good).records).toEqual(records.map((_, n) => ({ n })));
  });

  it('rejects a missing comma between records, and text after the object', () => {
    const missing = '{"records":[{"n":1} {"n":2}]}';
    expect(errorOf(() => decode(missing, [3])).offset).toBe(missing.indexOf(' {"n":2') + 1);
    expect(errorOf(() => decode(missing)).message).toBe(
      `expected ',' or ']' after records[0], found "{\\"n\\":2}]}" (at offset ${missing.indexOf(' {"n":2') + 1})`,
    );
    expect(errorOf(() => decode('{"records":[]} x')).detail).toMatch(/^expected nothing after the object/);
    expect(errorOf(() => decode('[1,2]')).detail).toMatch(/^expected '\{'/);
    expect(errorOf(() => decode('{"records":{"n":1}}')).detail).toMatch(/^expected an array for records/);
  });

  it('rejects a body cut in the middle of a record, naming the record it was in', () => {
    const text = JSON.stringify(tricky);
    const cut = text.slice(0, text.indexOf('back\\\\slash') + 4);
    const error = errorOf(() => decode(cut, [7]));
    expect(error.detail).toBe('the body ended inside records[1]');
    expect(error.offset).toBe(cut.length);
    // Cut after a whole record but before the array closes, or inside the metadata.
    expect(errorOf(() => decode('{"records":[{"n":1},')).detail).toBe('the body ended inside records[1]');
    expect(errorOf(() => decode('{"records":[],"metadata":{"query":')).detail).toBe('the body ended inside metadata');
    expect(errorOf(() => decode('')).detail).toBe('the body ended inside the object');
  });

  it('rejects malformed JSON outside the array, naming the member', () => {
    expect(errorOf(() => decode('{"records":[],"metadata":{"a":tru}}')).detail).toMatch(/^metadata is not valid JSON/);
  });
});
