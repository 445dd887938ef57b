/** A store function written to run inside a store transaction, for callers outside one (async, as every store caller is). */
export const outsideTransaction =
  <Args extends unknown[], Result>(run: (...args: Args) => Result) =>
  async (...args: Args): Promise<Result> =>
    run(...args);
