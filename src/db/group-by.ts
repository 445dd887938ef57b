/** Items grouped by a key, each group in the order given (Map.groupBy, which Node 20 lacks). */
export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const grouped = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const listed = grouped.get(key);
    if (listed) listed.push(item);
    else grouped.set(key, [item]);
  }
  return grouped;
}

/** Samples grouped by Pod, each Pod's in the order given. */
export const byPod = <T extends { podId: string }>(samples: readonly T[]) => groupBy(samples, (sample) => sample.podId);

/** A write's samples by Pod, each Pod's oldest first, each key once (as stored). */
export type SamplesByPod<T> = ReadonlyMap<string, readonly T[]>;
