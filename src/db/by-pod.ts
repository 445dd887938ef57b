/** Samples grouped by Pod, each Pod's in the order given. */
export function byPod<T extends { podId: string }>(samples: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const sample of samples) {
    const listed = grouped.get(sample.podId);
    if (listed) listed.push(sample);
    else grouped.set(sample.podId, [sample]);
  }
  return grouped;
}
