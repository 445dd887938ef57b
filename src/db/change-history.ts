import type { Database } from './open.js';

/** The three statements of a change-only history table, keyed by an item's natural key. */
export interface HistoryStatements<Key, Row extends { sinceAt: number }, Insert> {
  latest: { get(key: Key): Row | undefined };
  touch: { run(params: Key & { sinceAt: number; now: number }): unknown };
  insert(row: Insert & { sinceAt: number; lastSeenAt: number }): unknown;
}

/**
 * Records one poll into a change-only history (catalog availability, GPU stock): an item whose
 * figures are unchanged only moves its latest row's last_seen_at; any change starts a new row
 * at `now`. One transaction for the whole poll.
 */
export function recordChanges<Observation, Key, Row extends { sinceAt: number }, Insert>(
  database: Database,
  statements: HistoryStatements<Key, Row, Insert>,
  observations: readonly Observation[],
  item: {
    key(observation: Observation): Key;
    row(observation: Observation): Insert;
    same(previous: Row, observation: Observation): boolean;
  },
  now: number,
): { changed: number; unchanged: number } {
  let changed = 0;
  database.transaction(() => {
    for (const observation of observations) {
      const key = item.key(observation);
      const previous = statements.latest.get(key);
      if (previous && item.same(previous, observation)) {
        statements.touch.run({ ...key, sinceAt: previous.sinceAt, now });
      } else {
        statements.insert({ ...item.row(observation), sinceAt: now, lastSeenAt: now });
        changed += 1;
      }
    }
  });
  return { changed, unchanged: observations.length - changed };
}
