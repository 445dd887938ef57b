import { describe, expect, it } from 'vitest';
import { EventBus } from '../src/events.js';

type Events = { ran: { n: number } };

/** A listener that finishes only after a few turns of the event loop, as a store read does. */
async function later<T>(value: T): Promise<T> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  return value;
}

describe('the event bus', () => {
  it('resolves next() only once the async listeners of that emit have finished', async () => {
    const bus = new EventBus<Events>();
    const seen: number[] = [];
    bus.on('ran', async ({ n }) => {
      seen.push(await later(n));
    });
    const next = bus.next('ran');
    bus.emit('ran', { n: 1 });
    await next;
    expect(seen).toEqual([1]);
  });

  it('settled() waits for every listener promise in flight, and a rejection is not thrown into the emitter', async () => {
    const bus = new EventBus<Events>();
    const seen: number[] = [];
    bus.on('ran', async ({ n }) => {
      seen.push(await later(n));
    });
    bus.on('ran', async () => {
      await later(0);
      throw new Error('listener failed');
    });
    bus.emit('ran', { n: 1 });
    bus.emit('ran', { n: 2 });
    await bus.settled();
    expect(seen).toEqual([1, 2]);
  });
});
