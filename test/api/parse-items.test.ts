import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseItems } from '../../src/api/parse.js';

describe('parseItems over a list longer than one turn', () => {
  it('keeps every good item in order and names each bad one by its place in the whole list', async () => {
    const records = Array.from({ length: 5_000 }, (_, i) => ({ id: `r${i}`, n: i }));
    records[1] = { id: 'r1', n: 'one' as unknown as number };
    records[4_321] = { id: 'r4321', n: 'many' as unknown as number };
    const parsed = await parseItems(z.looseObject({ id: z.string(), n: z.number() }), 'records', { records }, 'GET /x');
    expect(parsed.items.map((item) => item.n)).toEqual(
      Array.from({ length: 5_000 }, (_, i) => i).filter((i) => i !== 1 && i !== 4_321),
    );
    expect(parsed.rejected.map(({ index, id, reason }) => ({ index, id, reason }))).toEqual([
      { index: 1, id: 'r1', reason: 'response body records[1].n: expected number, received string' },
      { index: 4_321, id: 'r4321', reason: 'response body records[4321].n: expected number, received string' },
    ]);
  });
});
