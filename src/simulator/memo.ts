/**
 * `compute` kept per key, for pure functions of a text or number the simulator meets again and
 * again (request targets, GraphQL documents, hour bounds). Bounded: past `limit` keys it starts
 * afresh, so a client sending ever new keys only costs each one computed once more.
 */
export function boundedMemo<K, V>(limit: number, compute: (key: K) => V): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    let value = kept.get(key);
    if (value === undefined) {
      value = compute(key);
      if (kept.size >= limit) kept.clear();
      kept.set(key, value);
    }
    return value;
  };
}
