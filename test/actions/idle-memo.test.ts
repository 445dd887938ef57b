import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { idleMemo } from '../../src/actions/idle-evaluator.js';
import { createLogger } from '../../src/log.js';
import { ACCOUNT } from '../helpers/harness.js';
import { busy, type IdleWorld, idleFrom, pod, scenario, startIdleWorld } from './idle-world.js';

let world: IdleWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const stopped = { ...pod('st-1', busy()), status: 'EXITED' };

/** A debug logger whose lines are kept, and the idle rule's own lines among them. */
function capturedLog() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  const log = createLogger({ level: 'debug', destination, pretty: false });
  const idleLines = () =>
    lines.filter((line) => line.rule === 'idle' && typeof line.judged === 'number') as Array<{
      judged: number;
      reused: number;
    }>;
  return { log, idleLines };
}

describe('the idle rule judges again only what changed', () => {
  it('re-runs no Pod when nothing landed, and the findings stay the same', async () => {
    world = await startIdleWorld(scenario([pod('nb-1', idleFrom('10m')), pod('busy-1', busy()), stopped]));
    await world.runUntil('50m');
    const memo = idleMemo(world.h.db, ACCOUNT).pods;
    // The Pod collector polled at 50m; the last tick was at 49m30s. nb-1 is idle (an open
    // episode): judged again. busy-1 stays busy: its verdict holds while its busy samples are
    // in the window, whatever lands after them.
    const before = memo.judged;
    const first = await world.evaluateNow();
    expect(memo.judged - before).toBe(1);
    expect(first.map((finding) => finding.key)).toContain(`idle:${ACCOUNT}:nb-1`);

    const again = memo.judged;
    const second = await world.evaluateNow();
    expect(memo.judged - again).toBe(0);
    expect(second).toEqual(first);
  });

  it('re-judges a Pod whose samples landed once its busy samples left the window', async () => {
    world = await startIdleWorld(scenario([pod('nb-1', idleFrom('10m')), pod('busy-1', busy()), stopped]));
    await world.runUntil('21m');
    const memo = idleMemo(world.h.db, ACCOUNT).pods;
    let before = memo.judged;
    await world.runUntil('22m');
    // At 21m30s nb-1's last busy sample (9m) is still in the window: busy, like busy-1. Neither is judged.
    expect(memo.judged - before).toBe(0);
    await world.runUntil('40m');
    before = memo.judged;
    await world.runUntil('41m');
    // One tick (40m30s) after one poll: nb-1's busy minutes have left the window, it is judged again.
    expect(memo.judged - before).toBe(1);
  });

  it('says in a debug line how many verdicts it judged and how many it kept, tick by tick', async () => {
    const { log, idleLines } = capturedLog();
    world = await startIdleWorld(
      scenario([pod('nb-1', idleFrom('10m')), pod('busy-1', busy()), stopped]),
      {},
      () => {},
      { log },
    );
    await world.runUntil('5m');
    // The first tick judges all three; the next ones none: both running Pods are busy (nb-1
    // until 10m) and the stopped one stays stopped, while a sample of each lands every minute.
    const early = idleLines();
    expect(early[0]).toMatchObject({ judged: 3, reused: 0 });
    expect(early.slice(1).map((line) => line.judged)).toEqual(early.slice(1).map(() => 0));
    expect(early.length).toBeGreaterThan(3);

    await world.runUntil('50m');
    const count = idleLines().length;
    // 20 s after the last poll and tick: no sample landed. nb-1 holds an episode, so its findings
    // quote this tick's evidence (judged); busy-1 and st-1 keep their verdicts.
    world.h.clock.jump(20_000);
    const findings = await world.evaluateNow();
    expect(idleLines().slice(count)).toEqual([expect.objectContaining({ judged: 1, reused: 2 })]);
    expect(findings.filter((finding) => finding.labels.pod_id === 'busy-1')).toEqual([]);
    expect(findings.map((finding) => finding.key)).toContain(`idle:${ACCOUNT}:nb-1`);
  });
});
