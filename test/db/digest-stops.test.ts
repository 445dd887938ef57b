import { describe, expect, it } from 'vitest';
import { stopsBetween } from '../../src/db/digest.js';
import { writeEnforceStep } from '../../src/db/enforce-state.js';
import { writeLadderStep } from '../../src/db/ladder-step.js';
import type { ReceiptInput } from '../../src/db/receipts.js';
import { HOUR, T0, useTempDatabases } from './support.js';

/**
 * The digest's stops with what became of them: a stop's episode is the one of its kind (an idle
 * spell, or an enforcement episode by its occurrence), so a dry-run deadline stop stops counting
 * as "would have saved" when its episode ends, not when an idle spell that happens to share the
 * Pod and start time does.
 */
const temp = useTempDatabases();
const ACCOUNT = 'main';
const POD = 'pod-train';
const OCCURRENCE = T0;

const deadlineStop: ReceiptInput = {
  idempotencyKey: `${ACCOUNT}:${POD}:deadline:${OCCURRENCE}:dry_run`,
  account: ACCOUNT,
  podId: POD,
  podName: 'train',
  rule: 'training',
  kind: 'deadline',
  episodeStartedAt: OCCURRENCE,
  decidedAt: T0 + 12 * HOUR,
  decision: 'dry_run',
  reason: null,
  dryRun: true,
  plannedStopAt: T0 + 12 * HOUR,
  costPerHr: 2,
  savingPerHr: 1.9,
  evidence: {
    kind: 'deadline',
    control: 'training',
    why: 'ran 12h, max runtime 12h',
    occurrence: OCCURRENCE,
    stopAt: T0 + 12 * HOUR,
    extendedMs: 0,
    warnLeadMs: 30 * 60_000,
  },
  guards: [],
};

describe('the digest reads each stop with its own episode', () => {
  it('ends a dry-run deadline stop with its enforcement episode, not with an idle spell of the same start', async () => {
    const db = temp.open();
    const key = { account: ACCOUNT, podId: POD, kind: 'deadline' as const, occurrence: OCCURRENCE };
    await writeEnforceStep(
      db,
      {
        kind: 'open',
        episode: {
          ...key,
          control: 'training',
          openedAt: T0 + 11 * HOUR,
          dryRun: true,
          extendedMs: 0,
          warnedAt: T0 + 11 * HOUR,
          decidedAt: T0 + 12 * HOUR,
          stopFailures: 0,
          endedAt: null,
          endReason: null,
        },
      },
      [deadlineStop],
    );
    // An idle spell of the same Pod that opened at the same instant, still open.
    await writeLadderStep(
      db,
      {
        kind: 'open',
        episode: {
          account: ACCOUNT,
          podId: POD,
          startedAt: OCCURRENCE,
          rule: 'default',
          notifiedAt: OCCURRENCE,
          warnedAt: null,
          decidedAt: null,
          stopFailures: 0,
          endedAt: null,
          endReason: null,
        },
      },
      [],
    );
    const read = async () => (await stopsBetween(db, ACCOUNT, T0, T0 + 24 * HOUR)).map((stop) => stop.episodeEndedAt);
    expect(await read()).toEqual([null]);
    await writeEnforceStep(
      db,
      { kind: 'update', key, change: { endedAt: T0 + 14 * HOUR, endReason: 'not_running' } },
      [],
    );
    expect(await read()).toEqual([T0 + 14 * HOUR]);
  });
});
