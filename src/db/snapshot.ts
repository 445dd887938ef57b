import type { CapacityWatch } from '../config/sections/capacity.js';
import { lastSuccessSync } from './collector-runs.js';
import { activeSnoozesSync, type IdleEpisodeRecord, openEpisodesSync } from './idle-state.js';
import type { Database } from './open.js';
import { livePodRows, type PodRecord } from './pod-list.js';
import { type UnknownSince, unknownPodsSinceSync } from './sample-ends.js';
import { type SampleSeries, windowSamples } from './sample-window.js';
import { type CapacitySnapshot, readCapacitySnapshot } from './snapshot-capacity.js';
import { readWasteSnapshot, type WasteSnapshot, type WasteWindow } from './snapshot-waste.js';
import { busyPodsSync } from './util-peaks.js';

/**
 * What one evaluation tick knows of one account, read once at the tick's start and dropped when
 * it ends. Rules judge only from it; nothing in it changes while the tick runs (what the tick
 * writes, episodes and receipts, is written through the actions, not read back from here).
 */
export interface AccountSnapshot {
  readonly account: string;
  /** The tick's time: every figure below is as of it. */
  readonly now: number;
  /** How often the Pod collector polls at `now` (podPollIntervalMs). */
  readonly pollIntervalMs: number;
  /** The Pods of the latest poll. */
  readonly pods: readonly PodRecord[];
  /**
   * The samples observed from `samplesFrom` up to `now` (and any newer), oldest first, of each
   * RUNNING Pod with GPUs not in `busy`: the only Pods rules/idle.ts judges on their samples.
   */
  readonly samples: ReadonlyMap<string, SampleSeries>;
  /**
   * Pods with a known sample in [busy.from, now] whose busiest GPU is above `busy.above`, no
   * sample newer than `now`, and no open idle episode (whose end would show the window's samples).
   */
  readonly busy: ReadonlySet<string>;
  readonly samplesFrom: number;
  /**
   * Per Pod whose latest sample is unknown and observed from `activityFrom` on, the ends of its
   * samples since (empty: not asked). A Pod whose latest sample is known is not listed.
   */
  readonly activity: ReadonlyMap<string, UnknownSince>;
  /** When the Pod collector last succeeded for the account (null: never). */
  readonly podsPolledAt: number | null;
  /** Open idle episodes by Pod. */
  readonly openEpisodes: ReadonlyMap<string, IdleEpisodeRecord>;
  /** Pods snoozed at `now`, and until when. */
  readonly snoozes: ReadonlyMap<string, number>;
  /** What the waste checks read (null: the waste rule is off). */
  readonly waste: WasteSnapshot | null;
  /** What the capacity watch list reads. */
  readonly capacity: CapacitySnapshot;
}

/** What the tick asks of an account's snapshot: its time and how far back the rules look at samples. */
export interface SnapshotWindow {
  now: number;
  pollIntervalMs: number;
  samplesFrom: number;
  /**
   * Which Pods are busy enough to need no samples: a known busiest-GPU figure above `above`
   * observed from `from` on (null: none is, every Pod's samples are read).
   */
  busy: { from: number; above: number } | null;
  /** From when the Pods whose latest sample is unknown are listed (null: by no rule, nothing is read). */
  activityFrom: number | null;
  /** null: the waste rule is off, nothing of it is read. */
  waste: WasteWindow | null;
  /** The capacity watch list (its histories are read for the accounts each watch covers). */
  capacityWatches: readonly CapacityWatch[];
}

/** Reads one account's snapshot with a handful of plain queries. */
export async function readAccountSnapshot(
  database: Database,
  account: string,
  window: SnapshotWindow,
): Promise<AccountSnapshot> {
  // One read transaction: every query sees the same commit, whatever another connection writes meanwhile.
  return database.transaction(() => read(database, account, window));
}

function read(database: Database, account: string, window: SnapshotWindow): AccountSnapshot {
  const { now, pollIntervalMs, samplesFrom } = window;
  const pods = livePodRows(database, account);
  const episodes = openEpisodesSync(database, account);
  const busy = new Set(
    window.busy === null
      ? []
      : busyPodsSync(database, account, { ...window.busy, to: now }).filter((id) => !episodes.has(id)),
  );
  const judged = pods.filter((pod) => pod.status === 'RUNNING' && pod.gpuCount && !busy.has(pod.podId));
  return {
    account,
    now,
    pollIntervalMs,
    pods,
    samples: windowSamples(
      database,
      account,
      samplesFrom,
      now,
      judged.map((pod) => pod.podId),
    ),
    busy,
    samplesFrom,
    activity: window.activityFrom === null ? new Map() : unknownPodsSinceSync(database, account, window.activityFrom),
    podsPolledAt: lastSuccessSync(database, account, 'pods'),
    openEpisodes: episodes,
    snoozes: activeSnoozesSync(database, account, now),
    waste: window.waste && readWasteSnapshot(database, account, pods, window.waste, now),
    capacity: readCapacitySnapshot(database, account, window.capacityWatches),
  };
}
