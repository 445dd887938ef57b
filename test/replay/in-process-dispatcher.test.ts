import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { apiClientFor } from '../../src/api/from-config.js';
import type { ApiClient } from '../../src/api/index.js';
import { silentLogger } from '../../src/log.js';
import { InProcessDispatcher } from '../../src/replay/in-process-dispatcher.js';
import { type Harness, startHarness } from '../helpers/harness.js';

/** small-team drops every /v2/ connection from 10h to 10h03m (its `reset` fault). */
const IN_RESET_WINDOW_MS = 10 * 3_600_000 + 60_000;

describe('the replay’s in-process road to the simulator', () => {
  let harness: Harness | undefined;
  let inProcess: ApiClient | undefined;
  afterEach(async () => {
    await inProcess?.close();
    await harness?.close();
  });

  async function start(): Promise<{ h: Harness; api: ApiClient }> {
    harness = await startHarness('small-team.yaml', (config) => {
      config.api.retries.max = 0;
    });
    const account = harness.config.accounts[0];
    if (!account) throw new Error('no account');
    inProcess = apiClientFor(harness.config, account, {
      clock: harness.clock,
      log: silentLogger(),
      dispatcher: new InProcessDispatcher([harness.sim]),
    });
    return { h: harness, api: inProcess };
  }

  it('answers REST and GraphQL as HTTP does, through the same request log', async () => {
    const { h, api } = await start();
    await h.clock.advanceTo(h.scenario.startMs + 3_600_000);
    const overHttp = await h.drive(h.api.rest.listPods());
    const before = h.sim.requestLog.counts().total;
    const inside = await h.drive(api.rest.listPods());
    expect(inside.items.length).toBeGreaterThan(0);
    expect(inside).toEqual(overHttp);
    expect(await h.drive(api.graphql.gpuTypesStock({ gpuCount: 1 }))).toEqual(
      await h.drive(h.api.graphql.gpuTypesStock({ gpuCount: 1 })),
    );
    expect(h.sim.requestLog.counts().total).toBe(before + 3);
  });

  it('fails a dropped connection as undici does over a socket', async () => {
    const { h, api } = await start();
    await h.clock.advanceTo(h.scenario.startMs + IN_RESET_WINDOW_MS);
    const failure = (work: Promise<unknown>) =>
      h.drive(work).then(
        () => undefined,
        (error: Error) => error,
      );
    const overHttp = await failure(h.api.rest.listPods());
    const inside = await failure(api.rest.listPods());
    expect(overHttp?.message).toMatch(/connection reset/);
    expect(inside?.message).toBe(overHttp?.message);
    expect((inside as { kind?: string }).kind).toBe((overHttp as { kind?: string }).kind);
  });
});

describe('the in-process road and abort signals', () => {
  it('leaves no abort listener behind on a run’s signal once its answers are read', async () => {
    const h = await startHarness('small-team.yaml');
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    const api = apiClientFor(h.config, account, {
      clock: h.clock,
      log: silentLogger(),
      dispatcher: new InProcessDispatcher([h.sim]),
    });
    try {
      const run = new AbortController();
      for (let i = 0; i < 12; i++) await h.drive(api.rest.listPods({}, { signal: run.signal }));
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      await api.close();
      await h.close();
    }
  });

  it('holds one abort listener per request in flight on a run’s signal, however many the run sends', async () => {
    const h = await startHarness('small-team.yaml');
    const account = h.config.accounts[0];
    if (!account) throw new Error('no account');
    const api = apiClientFor(h.config, account, {
      clock: h.clock,
      log: silentLogger(),
      dispatcher: new InProcessDispatcher([h.sim]),
    });
    const leaks: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'MaxListenersExceededWarning') leaks.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const run = new AbortController();
      // Five times the client's concurrency (4): answered in process, they finish many to a tick.
      const lists = await h.drive(
        Promise.all(Array.from({ length: 20 }, () => api.rest.listPods({}, { signal: run.signal }))),
      );
      expect(lists.every((list) => list.items.length > 0)).toBe(true);
      // Node reports the warning on a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(leaks.map((leak) => leak.message)).toEqual([]);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      process.off('warning', onWarning);
      await api.close();
      await h.close();
    }
  });
});
