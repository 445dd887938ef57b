import { describe, expect, it } from 'vitest';
import { applyMemoryPolicy, HEAP_GROWING_PERCENT } from '../src/memory-policy.js';

describe('the daemon memory policy', () => {
  it('leaves a pace given on the node command line as it is, and says so', () => {
    expect(applyMemoryPolicy(['--import', 'tsx', '--heap-growing-percent=20'])).toEqual({
      heapGrowingPercent: 20,
      setBy: 'node command line',
      heapLimitMb: expect.any(Number),
    });
    // 0 is V8's own choice, as node documents it; the last of several wins, as in node.
    expect(applyMemoryPolicy(['--heap_growing_percent=30', '--heap-growing-percent=0'])).toMatchObject({
      heapGrowingPercent: null,
      setBy: 'node command line',
    });
  });

  it('sets its own pace otherwise, and reports the heap limit node runs under', () => {
    const policy = applyMemoryPolicy([]);
    expect(policy).toMatchObject({ heapGrowingPercent: HEAP_GROWING_PERCENT, setBy: 'podwarden' });
    expect(policy.heapLimitMb).toBeGreaterThan(0);
  });
});
