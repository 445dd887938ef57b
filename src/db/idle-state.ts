import { and, eq, getTableColumns, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from './open.js';
import { outsideTransaction } from './outside-transaction.js';
import { idleEpisodes, podSnoozes, pods } from './schema.js';
import { perDatabase } from './statements.js';

/** The columns of a stored sample (pod_samples) that idle detection reads. */
export interface WindowSample {
  podId: string;
  observedAt: number;
  state: 'known' | 'unknown';
  uptimeS: number | null;
  maxGpuUtil: number | null;
  maxGpuMemoryUtil: number | null;
}

export type IdleEpisodeRecord = typeof idleEpisodes.$inferSelect;

/**
 * The open (not ended) episode of each Pod of the account. Read as arrays and built as one
 * literal, keys in the table's column order, of the columns an open episode does not hold for
 * sure (the account is the one asked for; it has neither ended nor a reason to).
 */
export function openEpisodesSync(database: Database, account: string): ReadonlyMap<string, IdleEpisodeRecord> {
  const open = new Map<string, IdleEpisodeRecord>();
  for (const [podId, startedAt, rule, notifiedAt, warnedAt, decidedAt, stopFailures] of tickReads(
    database,
  ).openEpisodes.all(account)) {
    open.set(podId, {
      account,
      podId,
      startedAt,
      rule,
      notifiedAt,
      warnedAt,
      decidedAt,
      stopFailures,
      endedAt: null,
      endReason: null,
    });
  }
  return open;
}

type OpenEpisodeRow = [string, number, string, number | null, number | null, number | null, number];

// Read by the idle rule on every tick (hundreds of rows at a large account): prepared once per database.
const tickReads = perDatabase((database) => ({
  openEpisodes: database.sqlite
    .prepare<[string], OpenEpisodeRow>(
      `SELECT pod_id, started_at, rule, notified_at, warned_at, decided_at, stop_failures
       FROM idle_episodes WHERE account = ? AND ended_at IS NULL`,
    )
    .raw(),
  activeSnoozes: database.sqlite
    .prepare<[string, number], [string, number]>(
      'SELECT pod_id, until FROM pod_snoozes WHERE account = ? AND until > ?',
    )
    .raw(),
}));

/** One episode by its key, open or ended. */
export async function episodeAt(database: Database, key: EpisodeKey): Promise<IdleEpisodeRecord | undefined> {
  return database.db.select().from(idleEpisodes).where(episodeKeyIs(key)).get();
}

/** Every open episode of every account, for status pages and metrics. */
export async function allOpenEpisodes(database: Database): Promise<IdleEpisodeRecord[]> {
  return database.db.select().from(idleEpisodes).where(isNull(idleEpisodes.endedAt)).all();
}

/** Opens an episode; a second open episode of the same Pod is refused by the database (unique index). */
export function openEpisode(database: Database, episode: typeof idleEpisodes.$inferInsert): void {
  episodeWrites(database).insert.run({
    ...episode,
    notifiedAt: episode.notifiedAt ?? null,
    warnedAt: episode.warnedAt ?? null,
    decidedAt: episode.decidedAt ?? null,
    stopFailures: episode.stopFailures ?? 0,
    endedAt: episode.endedAt ?? null,
    endReason: episode.endReason ?? null,
  });
}

const columnNames = Object.fromEntries(
  Object.entries(getTableColumns(idleEpisodes)).map(([key, column]) => [key, column.name]),
) as Record<keyof IdleEpisodeRecord, string>;

// SQL text, prepared once per database (an update once per set of changed columns): the ladder
// moves episodes on every tick. Every column is a plain integer or text: nothing to encode.
const episodeWrites = perDatabase((database) => {
  const keys = Object.keys(columnNames) as Array<keyof IdleEpisodeRecord>;
  const updates = new Map<string, ReturnType<Database['sqlite']['prepare']>>();
  return {
    insert: database.sqlite.prepare(
      `INSERT INTO idle_episodes (${keys.map((key) => `"${columnNames[key]}"`).join(', ')})
       VALUES (${keys.map((key) => `@${key}`).join(', ')})`,
    ),
    update(changed: readonly string[]) {
      const shape = changed.join(',');
      let statement = updates.get(shape);
      if (statement === undefined) {
        const set = changed.map((key) => `"${columnNames[key as keyof IdleEpisodeRecord]}" = @${key}`).join(', ');
        statement = database.sqlite.prepare(
          `UPDATE idle_episodes SET ${set}
           WHERE account = @account AND pod_id = @podId AND started_at = @startedAt AND ended_at IS NULL`,
        );
        updates.set(shape, statement);
      }
      return statement;
    },
  };
});

type EpisodeKey = Pick<IdleEpisodeRecord, 'account' | 'podId' | 'startedAt'>;

const episodeKeyIs = (key: EpisodeKey) =>
  and(
    eq(idleEpisodes.account, key.account),
    eq(idleEpisodes.podId, key.podId),
    eq(idleEpisodes.startedAt, key.startedAt),
  );
type EpisodeChange = Partial<
  Pick<IdleEpisodeRecord, 'notifiedAt' | 'warnedAt' | 'decidedAt' | 'stopFailures' | 'endedAt' | 'endReason'>
>;

/** Moves an open episode on; a change to an episode already ended is refused (history is not rewritten). */
export function updateEpisode(database: Database, key: EpisodeKey, change: EpisodeChange): void {
  // Only what the change names (drizzle's .set() skips undefined values the same way).
  const changed = Object.keys(change).filter((name) => change[name as keyof EpisodeChange] !== undefined);
  if (changed.length === 0) throw new Error(`update idle episode ${key.account}/${key.podId}: nothing to change`);
  const result = episodeWrites(database)
    .update(changed)
    .run({ ...change, account: key.account, podId: key.podId, startedAt: key.startedAt });
  if (result.changes !== 1) {
    throw new Error(`update idle episode ${key.account}/${key.podId}@${key.startedAt}: no open episode`);
  }
}

/** Snoozes a Pod until `until` (replacing an earlier snooze); `until <= now` ends it. */
export function snoozePodSync(database: Database, snooze: typeof podSnoozes.$inferInsert): void {
  database.db
    .insert(podSnoozes)
    .values(snooze)
    .onConflictDoUpdate({
      target: [podSnoozes.account, podSnoozes.podId],
      set: {
        until: sql`excluded.until`,
        createdAt: sql`excluded.created_at`,
        source: sql`excluded.source`,
        createdBy: sql`excluded.created_by`,
      },
    })
    .run();
}

/** The Pods of the account snoozed beyond `now`, and until when. */
export function activeSnoozesSync(database: Database, account: string, now: number): ReadonlyMap<string, number> {
  return new Map(tickReads(database).activeSnoozes.all(account, now));
}

/** The snoozes of a Pod id that last beyond `now`, per account, alphabetically. */
export function podSnoozesAfterSync(
  database: Database,
  podId: string,
  now: number,
): Array<Omit<SnoozeRecord, 'podId' | 'createdAt'>> {
  return database.db
    .select({
      account: podSnoozes.account,
      until: podSnoozes.until,
      source: podSnoozes.source,
      createdBy: podSnoozes.createdBy,
    })
    .from(podSnoozes)
    .where(and(eq(podSnoozes.podId, podId), gt(podSnoozes.until, now)))
    .orderBy(podSnoozes.account)
    .all();
}

export type SnoozeRecord = typeof podSnoozes.$inferSelect;

/** Every snooze lasting beyond `now` (any account), ending soonest first: for /api/status and the digest. */
export async function snoozesAfter(database: Database, now: number): Promise<SnoozeRecord[]> {
  return database.db
    .select()
    .from(podSnoozes)
    .where(gt(podSnoozes.until, now))
    .orderBy(podSnoozes.until, podSnoozes.account, podSnoozes.podId)
    .all();
}

/** The accounts whose Pod list ever held this Pod id (gone Pods included), alphabetically. */
export async function accountsOfPod(database: Database, podId: string): Promise<string[]> {
  return database.db
    .selectDistinct({ account: pods.account })
    .from(pods)
    .where(eq(pods.podId, podId))
    .orderBy(pods.account)
    .all()
    .map((row) => row.account);
}

/** Every Pod id an account's (or any account's) Pod list ever held, gone Pods included, alphabetically. */
export async function knownPodIds(database: Database, account?: string): Promise<string[]> {
  return database.db
    .selectDistinct({ podId: pods.podId })
    .from(pods)
    .where(account === undefined ? undefined : eq(pods.account, account))
    .orderBy(pods.podId)
    .all()
    .map((row) => row.podId);
}

/** The Sync reads and write above, for callers outside a store transaction. */
export const openEpisodes = outsideTransaction(openEpisodesSync);
export const activeSnoozes = outsideTransaction(activeSnoozesSync);
export const podSnoozesAfter = outsideTransaction(podSnoozesAfterSync);
export const snoozePod = outsideTransaction(snoozePodSync);
