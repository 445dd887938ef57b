/**
 * What a mistyped name was probably meant to be, for "did you mean …?" in errors that list what
 * exists. A typo is one edit away (two for long names); `colour` is not a misspelling of `cloud`.
 */
export function nearMiss(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    const allowed = Math.min(word.length, candidate.length) >= 8 ? 2 : 1;
    if (distance === 0 || (Math.min(word.length, candidate.length) >= 4 && distance <= allowed)) return candidate;
  }
  return undefined;
}

/** ` (did you mean x?)` when a known name is one typo away, else ''. */
export function didYouMean(word: string, known: readonly string[]): string {
  const meant = nearMiss(word, known);
  return meant === undefined ? '' : ` (did you mean ${meant}?)`;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}
