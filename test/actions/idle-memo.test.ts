import { afterEach, describe, expect, it } from 'vitest';
import { idleMemo } from '../../src/actions/idle-evaluator.js';
import { ACCOUNT } from '../helpers/harness.js';
import { busy, type IdleWorld, idleFrom, pod, scenario, startIdleWorld } from './idle-world.js';

let world: IdleWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const stopped = { ...pod('st-1', busy()), status: 'EXITED' };

describe('the idle rule judges again only what changed', () => {
  it('re-runs no Pod when nothing landed, and the findings stay the same', async () => {
    world = await startIdleWorld(scenario([pod('nb-1', idleFrom('10m')), pod('busy-1', busy()), stopped]));
    await world.runUntil('50m');
    const memo = idleMemo(world.h.db, ACCOUNT).pods;
    // The Pod collector polled at 50m; the last tick was at 49m30s: both running Pods are new.
    const before = memo.judged;
    const first = await world.evaluateNow();
    expect(memo.judged - before).toBe(2);
    expect(first.map((finding) => finding.key)).toContain(`idle:${ACCOUNT}:nb-1`);

    const again = memo.judged;
    const second = await world.evaluateNow();
    expect(memo.judged - again).toBe(0);
    expect(second).toEqual(first);
  });

  it('re-judges the Pods whose samples landed at the next tick', async () => {
    world = await startIdleWorld(scenario([pod('nb-1', idleFrom('10m')), pod('busy-1', busy()), stopped]));
    await world.runUntil('20m');
    const memo = idleMemo(world.h.db, ACCOUNT).pods;
    const before = memo.judged;
    await world.runUntil('21m');
    // One tick (20m30s) after one poll (21m is not yet run): the two running Pods, not the stopped one.
    expect(memo.judged - before).toBe(2);
  });
});
