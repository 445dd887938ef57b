import { describe, expect, it } from 'vitest';
import { writeLadderStep } from '../../src/db/ladder-step.js';
import type { Database } from '../../src/db/open.js';
import { type PodInput, syncPods } from '../../src/db/pods.js';
import type { ReceiptInput } from '../../src/db/receipts.js';
import { savedWithin, savingsOverlapping } from '../../src/db/savings.js';
import type { ReceiptDecision } from '../../src/db/schema.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { HOUR, MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();
const ACCOUNT = 'main';
const PODS = ['p1', 'p2', 'p3', 'p4'];

function pod(podId: string, status: string, startedAt: number | null): PodInput {
  return {
    podId,
    name: `name-${podId}`,
    status,
    costPerHr: status === 'RUNNING' ? 2.99 : 0,
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    gpuCount: 1,
    cpuTypeId: null,
    cloud: 'SECURE',
    dataCenterId: 'US-KS-2',
    clusterId: null,
    clusterRole: null,
    volumeGb: 100,
    networkVolumeId: null,
    env: {},
    actions: ['stop'],
    locked: 0,
    createdAt: T0 - HOUR,
    startedAt,
  };
}

function receipt(key: string, podId: string, at: number, decision: ReceiptDecision, dryRun: boolean): ReceiptInput {
  return {
    idempotencyKey: key,
    kind: 'idle',
    account: ACCOUNT,
    podId,
    podName: `name-${podId}`,
    rule: key.startsWith('deadline') ? 'deadline' : 'default',
    episodeStartedAt: at - HOUR,
    decidedAt: at,
    decision,
    reason: null,
    dryRun,
    plannedStopAt: null,
    costPerHr: 2.99,
    savingPerHr: 2.98,
    evidence: {
      windowFrom: 0,
      windowTo: 0,
      thresholds: { utilThreshold: 5, coverage: 0.9, minSamples: 3, windowMs: 0, graceMs: 0, memoryThreshold: 10 },
      coverage: 1,
      idleSamples: 3,
      held: false,
      samples: [],
    },
    guards: [],
  };
}

type Ledger = Array<
  [receiptId: number, podId: string, stoppedAt: number, endedAt: number | null, endReason: string | null]
>;

function held(database: Database): Ledger {
  return database.sqlite
    .prepare('SELECT receipt_id, pod_id, stopped_at, ended_at, end_reason FROM stop_savings ORDER BY receipt_id')
    .raw()
    .all() as Ledger;
}

/** One poll as the test gave it: the Pods listed. */
interface Poll {
  at: number;
  listed: ReadonlyMap<string, PodInput>;
}

/**
 * The ledger computed afresh from the stored receipts and the polls given: each stop sent opens a
 * saving unless the Pod's previous one is still open; it ends at the first later poll listing the
 * Pod RUNNING with a start after the stop or where the poll before had it not RUNNING, or not
 * listing it at all (gone).
 */
function expected(database: Database, polls: readonly Poll[]): Ledger {
  const stops = database.sqlite
    .prepare(
      `SELECT id, pod_id, decided_at FROM action_receipts
       WHERE decision = 'stopped' AND dry_run = 0 ORDER BY id`,
    )
    .raw()
    .all() as Array<[number, string, number]>;
  const ledger: Ledger = [];
  for (const [id, podId, stoppedAt] of stops) {
    const previous = ledger.filter((row) => row[1] === podId).at(-1);
    if (previous && (previous[3] === null || previous[3] > stoppedAt)) continue;
    let end: [number, string] | null = null;
    let before = polls
      .filter((poll) => poll.at <= stoppedAt)
      .at(-1)
      ?.listed.get(podId);
    for (const poll of polls.filter((p) => p.at > stoppedAt)) {
      const now = poll.listed.get(podId);
      if (now === undefined) {
        end = [poll.at, 'gone'];
        break;
      }
      const startedAfter = now.startedAt !== null && now.startedAt > stoppedAt;
      if (now.status === 'RUNNING' && (startedAfter || before?.status !== 'RUNNING')) {
        end = [poll.at, 'started'];
        break;
      }
      before = now;
    }
    ledger.push([id, podId, stoppedAt, end?.[0] ?? null, end?.[1] ?? null]);
  }
  return ledger;
}

describe('stop_savings', () => {
  it('equals a fresh derivation from the receipts and the Pod polls, through stops, dry runs, lagging polls, restarts and gone Pods', async () => {
    const database = temp.open();
    const next = seededRandom(29);
    // The world as the API would list it: status and last start per Pod (absent: terminated).
    const world = new Map(PODS.map((podId) => [podId, pod(podId, 'RUNNING', T0 - HOUR)]));
    const polls: Poll[] = [];
    let keys = 0;
    let now = T0;
    for (let step = 0; step < 400; step++) {
      now += MINUTE;
      const podId = PODS[Math.floor(next() * PODS.length)] as string;
      const current = world.get(podId);
      const roll = next();
      if (current && roll < 0.2) {
        // podwarden decides a stop a few seconds before the poll: sent, dry run, blocked; a
        // second control may stop a Pod already stopped.
        const [decision, dryRun] = (
          [
            ['stopped', false],
            ['stopped', false],
            ['dry_run', true],
            ['blocked', false],
          ] as const
        )[Math.floor(next() * 4)] as [ReceiptDecision, boolean];
        const kind = next() < 0.5 ? 'idle' : 'deadline';
        const at = now - 5_000;
        await writeLadderStep(database, { kind: 'none' }, [receipt(`${kind}-${keys++}`, podId, at, decision, dryRun)]);
        if (decision === 'stopped') world.set(podId, pod(podId, 'EXITED', current.startedAt));
        // Its owner starts it again before the next poll: only its start tells.
        if (decision === 'stopped' && next() < 0.2) world.set(podId, pod(podId, 'RUNNING', now - 1_000));
      } else if (current && roll < 0.35) {
        // The owner starts it again (or it was running: nothing changes); the API does not always
        // say when it started.
        const startedAt = next() < 0.5 ? now - 10_000 : null;
        if (current.status !== 'RUNNING') world.set(podId, pod(podId, 'RUNNING', startedAt));
      } else if (current && roll < 0.3 + (current.status === 'RUNNING' ? 0.02 : 0.1)) {
        world.delete(podId);
      } else if (!current && roll < 0.5) {
        world.set(podId, pod(podId, 'RUNNING', now - 10_000));
      }
      // A poll now and then lags behind a stop: the Pod still listed RUNNING as before.
      const listed = new Map(world);
      if (next() < 0.1) {
        const stale = polls.at(-1)?.listed.get(podId);
        if (stale?.status === 'RUNNING' && listed.get(podId)?.status === 'EXITED') listed.set(podId, stale);
      }
      await syncPods(database, ACCOUNT, [...listed.values()], now);
      polls.push({ at: now, listed });
    }
    const ledger = held(database);
    expect(ledger.filter((row) => row[4] === 'started').length).toBeGreaterThan(5);
    expect(ledger.filter((row) => row[4] === 'gone').length).toBeGreaterThan(0);
    expect(ledger.filter((row) => row[4] === null).length).toBeGreaterThan(0);
    expect(ledger).toEqual(expected(database, polls));
  });

  it('saves the rate for the stopped time: until started again, or until now; clipped to a window', async () => {
    const database = temp.open();
    await syncPods(database, ACCOUNT, [pod('p1', 'RUNNING', T0 - HOUR), pod('p2', 'RUNNING', T0 - HOUR)], T0);
    await writeLadderStep(database, { kind: 'none' }, [
      receipt('a', 'p1', T0 + MINUTE, 'stopped', false),
      receipt('b', 'p2', T0 + MINUTE, 'stopped', false),
    ]);
    await syncPods(
      database,
      ACCOUNT,
      [pod('p1', 'EXITED', T0 - HOUR), pod('p2', 'EXITED', T0 - HOUR)],
      T0 + 2 * MINUTE,
    );
    const restart = T0 + 3 * HOUR + MINUTE;
    await syncPods(database, ACCOUNT, [pod('p1', 'RUNNING', restart - 1), pod('p2', 'EXITED', T0 - HOUR)], restart);
    const end = T0 + 5 * HOUR + MINUTE;
    const [p1, p2] = await savingsOverlapping(database, { from: T0, to: end });
    expect(p1?.endedAt).toBe(restart);
    expect(p2?.endedAt).toBeNull();
    expect(savedWithin(p1!, { from: T0, to: end })).toBeCloseTo(2.98 * 3, 10);
    expect(savedWithin(p2!, { from: T0, to: end })).toBeCloseTo(2.98 * 5, 10);
    expect(savedWithin(p2!, { from: T0 + HOUR + MINUTE, to: T0 + 2 * HOUR + MINUTE })).toBeCloseTo(2.98, 10);
    expect(savedWithin(p1!, { from: restart, to: end })).toBe(0);
  });
});
