/** Piecewise constant: each value holds from its `atMs` until the next entry's. Sorted. */
export type Timeline<T> = Array<{ atMs: number; value: T }>;

/** Index of the last entry at or before `t`, or -1 when `t` precedes every entry. */
export function indexAt<T>(timeline: Timeline<T>, t: number): number {
  let low = 0;
  let high = timeline.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((timeline[middle] as { atMs: number }).atMs <= t) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** The value in force at `t`; `before` when `t` precedes the first entry. */
export function valueAt<T>(timeline: Timeline<T>, t: number, before: T): T {
  const index = indexAt(timeline, t);
  return index < 0 ? before : (timeline[index] as { value: T }).value;
}

/** Constant pieces `[fromMs, toMs)` of a timeline clipped to a window; `before` fills the start. */
export function piecesOf<T>(
  timeline: Timeline<T>,
  fromMs: number,
  toMs: number,
  before: T,
): Array<{ fromMs: number; toMs: number; value: T }> {
  const pieces: Array<{ fromMs: number; toMs: number; value: T }> = [];
  if (toMs <= fromMs) return pieces;
  let index = indexAt(timeline, fromMs);
  let cursor = fromMs;
  let value = index < 0 ? before : (timeline[index] as { value: T }).value;
  for (index += 1; index < timeline.length; index++) {
    const entry = timeline[index] as { atMs: number; value: T };
    if (entry.atMs >= toMs) break;
    if (entry.atMs > cursor) pieces.push({ fromMs: cursor, toMs: entry.atMs, value });
    cursor = Math.max(cursor, entry.atMs);
    value = entry.value;
  }
  pieces.push({ fromMs: cursor, toMs, value });
  return pieces;
}
