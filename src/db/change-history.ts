import type { Database } from './open.js';

/** The columns every change-only history row has besides its item's key and figures. */
export interface HistoryRow {
  sinceAt: number;
  lastSeenAt: number;
}

/** The writes of a change-only history table. */
export interface HistoryStatements<Row extends HistoryRow> {
  /** Moves `row`'s last_seen_at (the row found by its key and since_at) up to `now`. */
  touch(row: Row, now: number): unknown;
  insert(row: Row): unknown;
}

/**
 * Records one poll into a change-only history (catalog availability, GPU stock): an item listed
 * more than once counts once, as its last listing says; an item whose figures are unchanged only
 * moves its latest row's last_seen_at; any change starts a new row at `now`. One transaction for
 * the whole poll. `latest` reads the latest row of every item (keyed as `item.key` keys an
 * observation) once, inside that transaction: comparing in memory costs far less than a lookup
 * per item.
 */
export function recordChanges<Observation, Row extends HistoryRow>(
  database: Database,
  statements: HistoryStatements<Row>,
  latest: () => ReadonlyMap<string, Row>,
  observations: readonly Observation[],
  item: {
    key(observation: Observation): string;
    row(observation: Observation): Omit<Row, keyof HistoryRow>;
    same(previous: Row, observation: Observation): boolean;
  },
  now: number,
): { changed: number; unchanged: number } {
  let changed = 0;
  let items = 0;
  database.transaction(() => {
    const stored = latest();
    // Listed twice is a valid answer (the API promises no unique items): the last listing wins, as in JSON.parse.
    const listed = new Map(observations.map((observation) => [item.key(observation), observation]));
    for (const [key, observation] of listed) {
      items += 1;
      const previous = stored.get(key);
      if (previous && item.same(previous, observation)) {
        statements.touch(previous, now);
      } else {
        statements.insert({ ...item.row(observation), sinceAt: now, lastSeenAt: now } as Row);
        changed += 1;
      }
    }
  });
  return { changed, unchanged: items - changed };
}
