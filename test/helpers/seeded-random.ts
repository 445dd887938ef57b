/**
 * A small seeded generator of numbers in [0, 1) (a linear congruential one), so a randomized test
 * that fails replays the same sequence.
 */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}
