import { and, asc, eq, gte, isNull, lte } from 'drizzle-orm';
import { type LatestInput, trackedSync } from './latest.js';
import type { Database } from './open.js';
import { podSamples, pods, type SampleState } from './schema.js';
import { perDatabase, placeholdersFor, replaceOnConflict, rowWriter } from './statements.js';

export type PodRecord = typeof pods.$inferSelect;
export type PodInput = LatestInput<typeof pods>;
export type PodSampleRecord = typeof podSamples.$inferSelect;

/** The latest `GET /pods` of an account: upserts every Pod, marks the missing ones gone. */
export const syncPods = trackedSync(pods, 'podId');

export function livePods(database: Database, account: string): PodRecord[] {
  return database.db
    .select()
    .from(pods)
    .where(and(eq(pods.account, account), isNull(pods.goneAt)))
    .orderBy(asc(pods.podId))
    .all();
}

/** One poll of one Pod. An unknown sample (no runtime) has every utilization null. */
export interface PodSampleInput {
  podId: string;
  observedAt: number;
  state: SampleState;
  uptimeS: number | null;
  /** Per GPU, in index order, 0–100. */
  gpuUtil: number[] | null;
  gpuMemoryUtil: number[] | null;
  cpuUtil: number | null;
  memoryUtil: number | null;
}

const insertSample = perDatabase((database) =>
  rowWriter<typeof podSamples.$inferInsert>(
    database,
    database.db
      .insert(podSamples)
      .values(placeholdersFor(podSamples))
      .onConflictDoUpdate(replaceOnConflict(podSamples, [podSamples.account, podSamples.observedAt, podSamples.podId])),
  ),
);

function maxOf(values: number[] | null): number | null {
  return values && values.length > 0 ? Math.max(...values) : null;
}

/** Stores samples (a re-sent sample replaces itself); the busiest-GPU figures are derived here, once. */
export function insertPodSamples(database: Database, account: string, samples: readonly PodSampleInput[]): number {
  const insert = insertSample(database);
  database.transaction(() => {
    for (const sample of samples) {
      insert({
        ...sample,
        account,
        maxGpuUtil: maxOf(sample.gpuUtil),
        maxGpuMemoryUtil: maxOf(sample.gpuMemoryUtil),
      });
    }
  });
  return samples.length;
}

/**
 * Every Pod's samples with from <= observed_at <= to, oldest first: one range scan of the
 * primary key, whatever the length of the history.
 */
export function podSamplesBetween(database: Database, account: string, from: number, to: number): PodSampleRecord[] {
  return database.db
    .select()
    .from(podSamples)
    .where(and(eq(podSamples.account, account), gte(podSamples.observedAt, from), lte(podSamples.observedAt, to)))
    .orderBy(asc(podSamples.observedAt), asc(podSamples.podId))
    .all();
}
