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
 * more than once counts once, as its last listing says; an item whose
 * figures are unchanged only moves its latest row's last_seen_at; any change starts a new row
 * at `now`. One transaction for the whole poll. `latest` reads the latest row of every item
 * (keyed as `item.key` keys an observation) once, inside that transaction: comparing in memory
 * costs far less than a lookup per item; it lists them in key order, as the latest queries do.
 * Returns the latest rows as the poll leaves them, in the same order (what `latest` would read
 * once the poll is committed; undefined when a stored row is newer than `now`), so a reader's
 * cache can take them instead of reading the history again.
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
): { changed: number; unchanged: number; latest: Row[] | undefined } {
  let changed = 0;
  let items = 0;
  let after: Row[] | undefined;
  // A stored row newer than `now` (a clock set back) stays the latest: then the poll's rows are not.
  let newerStored = false;
  database.transaction(() => {
    const stored = latest();
    const written = new Map<string, Row>();
    for (const [key, observation] of lastOfEachKey(observations, item.key)) {
      items += 1;
      const previous = stored.get(key);
      if (previous && item.same(previous, observation)) {
        statements.touch(previous, now);
        written.set(key, { ...previous, lastSeenAt: Math.max(previous.lastSeenAt, now) });
      } else {
        if (previous && previous.sinceAt > now) newerStored = true;
        const row = { ...item.row(observation), sinceAt: now, lastSeenAt: now } as Row;
        statements.insert(row);
        written.set(key, row);
        changed += 1;
      }
    }
    if (!newerStored) {
      // A Map keeps the place of a key set again: only items new to the history need sorting in.
      const merged = new Map(stored);
      let added = false;
      for (const [key, row] of written) {
        if (!merged.has(key)) added = true;
        merged.set(key, row);
      }
      after = added ? inKeyOrder(merged) : [...merged.values()];
    }
  });
  return { changed, unchanged: items - changed, latest: after };
}

/**
 * An item listed twice in one poll (a valid answer: the API promises no unique items) is what its
 * last listing says, as a repeated key is in JSON.parse and a repeated Pod in the Pod list.
 */
function lastOfEachKey<Observation>(
  observations: readonly Observation[],
  key: (observation: Observation) => string,
): Map<string, Observation> {
  const last = new Map<string, Observation>();
  for (const observation of observations) last.set(key(observation), observation);
  return last;
}

/**
 * The rows of recordChanges' `latest` in the order of their keys, which is the order of the
 * history's key columns (the keys join them with NUL), as the latest queries return them.
 */
function inKeyOrder<Row>(latest: ReadonlyMap<string, Row>): Row[] {
  return [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
