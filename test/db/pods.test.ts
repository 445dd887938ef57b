import { describe, expect, it } from 'vitest';
import {
  insertPodSamples,
  livePods,
  type PodInput,
  podListPolledAt,
  podSamplesBetween,
  podsLastSeenAt,
  storePodPoll,
  syncPods,
} from '../../src/db/pods.js';
import { MINUTE, T0, useTempDatabases } from './support.js';

const temp = useTempDatabases();

function pod(podId: string, overrides: Partial<PodInput> = {}): PodInput {
  return {
    podId,
    name: `name-${podId}`,
    status: 'RUNNING',
    costPerHr: 2.99,
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    gpuCount: 1,
    cpuTypeId: null,
    cloud: 'SECURE',
    dataCenterId: 'US-KS-2',
    clusterId: null,
    clusterRole: null,
    volumeGb: 100,
    networkVolumeId: null,
    env: { TEAM: 'research' },
    actions: ['stop', 'restart', 'terminate'],
    locked: 0,
    createdAt: T0 - MINUTE,
    startedAt: T0,
    ...overrides,
  };
}

/** A poll whose samples fail to store (a sample without its Pod): its transaction rolls the sync back. */
function failedPoll(database: ReturnType<typeof temp.open>, pods: PodInput[], now: number) {
  const sample = { podId: null as unknown as string, observedAt: now, state: 'unknown' as const };
  const unknown = { uptimeS: null, gpuUtil: null, gpuMemoryUtil: null, cpuUtil: null, memoryUtil: null };
  const unreadable = { ids: [], anonymous: false };
  return storePodPoll(database, {
    account: 'main',
    pods,
    unreadable,
    samples: [{ ...sample, ...unknown }],
    now,
    tailFrom: now,
  });
}

/** The account's pod_lists row, read as it is stored. */
function podListPoll(database: ReturnType<typeof temp.open>, account: string) {
  return database.sqlite
    .prepare<[string], { seenAt: number; syncedAt: number }>(
      'SELECT seen_at AS seenAt, synced_at AS syncedAt FROM pod_lists WHERE account = ?',
    )
    .get(account);
}

function allPods(database: ReturnType<typeof temp.open>) {
  return database.sqlite
    .prepare('SELECT pod_id, status, first_seen_at, last_seen_at, gone_at FROM pods ORDER BY account, pod_id')
    .all();
}

describe('syncPods', () => {
  it('marks Pods missing from the latest list gone, keeps their rows, and revives one that returns', async () => {
    const database = temp.open();
    expect(await syncPods(database, 'main', [pod('a'), pod('b'), pod('c')], T0)).toEqual({ upserted: 3, gone: [] });
    expect(
      await syncPods(database, 'main', [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('c')], T0 + MINUTE),
    ).toEqual({
      upserted: 2,
      gone: ['b'],
    });
    // Already gone: not reported again.
    expect((await syncPods(database, 'main', [pod('a'), pod('c')], T0 + 2 * MINUTE)).gone).toEqual([]);
    expect((await livePods(database, 'main')).map((row) => row.podId)).toEqual(['a', 'c']);

    expect((await syncPods(database, 'main', [pod('b')], T0 + 3 * MINUTE)).gone.sort()).toEqual(['a', 'c']);
    expect(allPods(database)).toEqual([
      { pod_id: 'a', status: 'RUNNING', first_seen_at: T0, last_seen_at: T0 + 2 * MINUTE, gone_at: T0 + 3 * MINUTE },
      { pod_id: 'b', status: 'RUNNING', first_seen_at: T0, last_seen_at: T0 + 3 * MINUTE, gone_at: null },
      { pod_id: 'c', status: 'RUNNING', first_seen_at: T0, last_seen_at: T0 + 2 * MINUTE, gone_at: T0 + 3 * MINUTE },
    ]);
  });

  it('stores the latest state with its JSON fields, and an empty list marks every Pod of that account gone', async () => {
    const database = temp.open();
    await syncPods(database, 'main', [pod('a')], T0);
    await syncPods(database, 'other', [pod('a', { name: 'same id, other account' })], T0);
    await syncPods(
      database,
      'main',
      [pod('a', { status: 'EXITED', costPerHr: 0, actions: ['start', 'terminate'] })],
      T0 + MINUTE,
    );

    const [latest] = await livePods(database, 'main');
    expect(latest).toMatchObject({
      account: 'main',
      status: 'EXITED',
      costPerHr: 0,
      env: { TEAM: 'research' },
      firstSeenAt: T0,
      goneAt: null,
    });
    // Only the poll reads actions: livePods leaves them out.
    const actions = database.sqlite.prepare("SELECT actions FROM pods WHERE account = 'main'").pluck().get();
    expect(JSON.parse(actions as string)).toEqual(['start', 'terminate']);
    expect((await podsLastSeenAt(database, 'main')).get('a')).toBe(T0 + MINUTE);

    expect((await syncPods(database, 'main', [], T0 + 2 * MINUTE)).gone).toEqual(['a']);
    expect(await livePods(database, 'main')).toEqual([]);
    expect((await livePods(database, 'other')).map((row) => row.name)).toEqual(['same id, other account']);
  });

  it('names a field the collector forgot instead of storing it as NULL', async () => {
    const database = temp.open();
    const { cpuTypeId: _, ...incomplete } = pod('a');
    await expect(syncPods(database, 'main', [incomplete as PodInput], T0)).rejects.toThrow(/the row has no cpuTypeId/);
  });

  it('writes nothing when a sync fails half-way', async () => {
    const database = temp.open();
    await syncPods(database, 'main', [pod('a')], T0);
    const broken = { ...pod('b'), status: null } as unknown as PodInput;
    await expect(syncPods(database, 'main', [pod('c'), broken], T0 + MINUTE)).rejects.toThrow(
      /NOT NULL constraint failed: pods.status/,
    );
    expect(allPods(database)).toEqual([
      { pod_id: 'a', status: 'RUNNING', first_seen_at: T0, last_seen_at: T0, gone_at: null },
    ]);
  });
});

describe('livePods across syncs', () => {
  /** What a second connection reads from the file: the list as stored, with no cache of this one. */
  async function stored(name = 'podwarden.db') {
    const other = temp.open(name);
    const list = await livePods(other, 'main');
    other.close();
    return list;
  }

  /** Each live Pod's last_seen_at, in podId order. */
  const lastSeen = async (database: ReturnType<typeof temp.open>) => {
    const seen = await podsLastSeenAt(database, 'main');
    return (await livePods(database, 'main')).map((row) => seen.get(row.podId));
  };
  /** What the live rows hold. */
  const storedSeenAt = (database: ReturnType<typeof temp.open>) =>
    database.sqlite
      .prepare('SELECT last_seen_at FROM pods WHERE account = ? AND gone_at IS NULL ORDER BY pod_id')
      .pluck()
      .all('main');

  it('writes no Pod row for a poll that changed nothing, but moves last_seen_at', async () => {
    const database = temp.open();
    await syncPods(database, 'main', [pod('a'), pod('b', { env: { TEAM: 'infra' } })], T0);
    expect(await lastSeen(database)).toEqual([T0, T0]);

    await syncPods(database, 'main', [pod('b', { env: { TEAM: 'infra' } }), pod('a')], T0 + MINUTE);
    const after = await livePods(database, 'main');
    expect(after).toEqual(await stored());
    expect(await lastSeen(database)).toEqual([T0 + MINUTE, T0 + MINUTE]);
    expect(await podListPolledAt(database, 'main')).toBe(T0 + MINUTE);
    // The rows were not written: pod_lists says when the poll saw them.
    expect(storedSeenAt(database)).toEqual([T0, T0]);
  });

  it('shows every change a sync makes, and nothing of a sync that rolled back', async () => {
    const database = temp.open();
    await syncPods(database, 'main', [pod('a'), pod('b'), pod('c')], T0);
    const first = await livePods(database, 'main');

    await expect(failedPoll(database, [pod('a'), pod('b'), pod('c')], T0 + MINUTE)).rejects.toThrow(/NOT NULL/);
    expect(await livePods(database, 'main')).toEqual(first);
    expect(await lastSeen(database)).toEqual([T0, T0, T0]);
    expect(await podListPolledAt(database, 'main')).toBe(T0);

    const changes: PodInput[][] = [
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b'), pod('c')],
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b', { actions: ['start'] }), pod('c')],
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b', { actions: ['start'] }), pod('c', { env: {} })],
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b', { actions: ['start'] })],
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b', { actions: ['start'] }), pod('d')],
      [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('a', { status: 'EXITED', costPerHr: 0 }), pod('d')],
    ];
    for (const [i, items] of changes.entries()) {
      await livePods(database, 'main');
      await syncPods(database, 'main', items, T0 + (i + 2) * MINUTE);
      expect(await livePods(database, 'main'), `sync ${i}`).toEqual(await stored());
    }
    expect((await livePods(database, 'main')).map((row) => [row.podId, row.status])).toEqual([
      ['a', 'EXITED'],
      ['d', 'RUNNING'],
    ]);

    // A Pod listed but unreadable keeps its older last_seen_at: the list says so.
    await livePods(database, 'main');
    await syncPods(database, 'main', [pod('d')], T0 + 9 * MINUTE, { ids: ['a'], anonymous: false });
    expect(await livePods(database, 'main')).toEqual(await stored());
    expect(await lastSeen(database)).toEqual([T0 + 7 * MINUTE, T0 + 9 * MINUTE]);
    expect(await podListPolledAt(database, 'main')).toBe(T0 + 9 * MINUTE);

    // Both read again, nothing else changed: every last_seen_at moves, then a poll writes no row.
    const readable = [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('d')];
    for (const minute of [10, 11, 12]) {
      await livePods(database, 'main');
      await syncPods(database, 'main', readable, T0 + minute * MINUTE);
      expect(await livePods(database, 'main')).toEqual(await stored());
      expect(await lastSeen(database)).toEqual([T0 + minute * MINUTE, T0 + minute * MINUTE]);
    }
    expect(storedSeenAt(database)).toEqual([T0 + 10 * MINUTE, T0 + 10 * MINUTE]);
    // Gone at the next poll: its last_seen_at is the last poll that listed it, as for the others.
    await syncPods(database, 'main', [pod('d')], T0 + 13 * MINUTE);
    expect(Object.fromEntries(await podsLastSeenAt(database, 'main'))).toEqual({
      a: T0 + 12 * MINUTE,
      b: T0 + 6 * MINUTE,
      c: T0 + 4 * MINUTE,
      d: T0 + 13 * MINUTE,
    });
  });

  it('a poll that changes nothing leaves the table, last_seen_at read through pod_lists, as upserting every Pod would', async () => {
    // `warm` has its list cached (the sync writes only pod_lists); `cold` never read it (every Pod upserted).
    const warm = temp.open('warm.db');
    const cold = temp.open('cold.db');
    const everything = async (database: typeof warm) => {
      const rows = database.sqlite
        .prepare<[], { account: string; pod_id: string }>('SELECT * FROM pods ORDER BY account, pod_id')
        .all();
      const seen = new Map<string, Map<string, number>>();
      for (const account of new Set(rows.map((row) => row.account))) {
        seen.set(account, await podsLastSeenAt(database, account));
      }
      return rows.map((row) => ({ ...row, last_seen_at: seen.get(row.account)?.get(row.pod_id) }));
    };
    const syncs: Array<[string, PodInput[], number]> = [
      ['main', [pod('a'), pod('b'), pod('gone')], T0],
      ['other', [pod('a', { name: 'other account' })], T0],
      ['main', [pod('a'), pod('b')], T0 + MINUTE],
      ['main', [pod('b'), pod('a')], T0 + 2 * MINUTE],
      ['main', [pod('a'), pod('b')], T0 + 3 * MINUTE],
      ['main', [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b')], T0 + 4 * MINUTE],
      ['main', [pod('a', { status: 'EXITED', costPerHr: 0 }), pod('b')], T0 + 5 * MINUTE],
    ];
    for (const [account, items, now] of syncs) {
      await livePods(warm, account);
      expect(await syncPods(warm, account, items, now)).toEqual(await syncPods(cold, account, items, now));
      expect(await everything(warm), `${account} at ${now - T0} ms`).toEqual(await everything(cold));
    }
    expect(await everything(warm)).toContainEqual(expect.objectContaining({ pod_id: 'gone', last_seen_at: T0 }));
    expect(await everything(warm)).toContainEqual(
      expect.objectContaining({ account: 'other', pod_id: 'a', last_seen_at: T0 }),
    );
    expect(await livePods(warm, 'main')).toEqual(await livePods(cold, 'main'));
  });

  it('compares the very row objects of last minute again once the stored list changed under them', async () => {
    // The Pods collector hands the same row object while a Pod's record is unchanged.
    const database = temp.open();
    const rows = [pod('a'), pod('b')];
    await syncPods(database, 'main', rows, T0);
    await livePods(database, 'main');
    await syncPods(database, 'main', rows, T0 + MINUTE);
    await livePods(database, 'main');
    const other = temp.open();
    await syncPods(other, 'main', [pod('a', { name: 'renamed' }), pod('b')], T0 + 2 * MINUTE);
    other.close();
    await livePods(database, 'main');
    await syncPods(database, 'main', rows, T0 + 3 * MINUTE);
    expect(await livePods(database, 'main')).toEqual(await stored());
    expect((await livePods(database, 'main')).map((row) => row.name)).toEqual(['name-a', 'name-b']);
  });

  it('sees a commit by another connection', async () => {
    const database = temp.open();
    await syncPods(database, 'main', [pod('a')], T0);
    expect((await livePods(database, 'main')).map((row) => row.name)).toEqual(['name-a']);
    const other = temp.open();
    await syncPods(other, 'main', [pod('a', { name: 'renamed' })], T0 + MINUTE);
    expect((await livePods(database, 'main')).map((row) => row.name)).toEqual(['renamed']);
    await syncPods(database, 'main', [pod('a', { name: 'renamed' })], T0 + 2 * MINUTE);
    expect(await livePods(database, 'main')).toEqual(await livePods(other, 'main'));
  });
});

describe('the pod_lists row a sync keeps', () => {
  it("is what the table holds after a commit, a rollback and another connection's write", async () => {
    const database = temp.open();
    const fresh = () => {
      const other = temp.open();
      const poll = podListPoll(other, 'main');
      other.close();
      return poll;
    };
    const check = (label: string) => expect(podListPoll(database, 'main'), label).toEqual(fresh());
    await syncPods(database, 'main', [pod('a')], T0);
    check('first sync');
    await livePods(database, 'main');
    await syncPods(database, 'main', [pod('a')], T0 + MINUTE);
    check('a sync that wrote only pod_lists');
    await expect(failedPoll(database, [pod('a')], T0 + 2 * MINUTE)).rejects.toThrow(/NOT NULL/);
    check('after a rollback');
    expect(podListPoll(database, 'main')).toEqual({ seenAt: T0 + MINUTE, syncedAt: T0 });
    const other = temp.open();
    other.sqlite.prepare('UPDATE pod_lists SET seen_at = ? WHERE account = ?').run(T0 + 5 * MINUTE, 'main');
    other.close();
    check("after another connection's write");
    expect(podListPoll(database, 'main')?.seenAt).toBe(T0 + 5 * MINUTE);
  });
});

describe('pod samples', () => {
  it('stores known and unknown samples with the busiest GPU derived, and replaces a re-sent one', async () => {
    const database = temp.open();
    await insertPodSamples(database, 'main', [
      {
        podId: 'a',
        observedAt: T0,
        state: 'known',
        uptimeS: 60,
        gpuUtil: [3, 97],
        gpuMemoryUtil: [10, 81],
        cpuUtil: 12,
        memoryUtil: 40,
      },
      {
        podId: 'b',
        observedAt: T0,
        state: 'unknown',
        uptimeS: null,
        gpuUtil: null,
        gpuMemoryUtil: null,
        cpuUtil: null,
        memoryUtil: null,
      },
    ]);
    await insertPodSamples(database, 'main', [
      {
        podId: 'a',
        observedAt: T0,
        state: 'known',
        uptimeS: 60,
        gpuUtil: [3, 50],
        gpuMemoryUtil: [10, 81],
        cpuUtil: 12,
        memoryUtil: 40,
      },
    ]);
    expect(await podSamplesBetween(database, 'main', T0, T0)).toEqual([
      {
        account: 'main',
        podId: 'a',
        observedAt: T0,
        state: 'known',
        uptimeS: 60,
        gpuUtil: [3, 50],
        gpuMemoryUtil: [10, 81],
        maxGpuUtil: 50,
        maxGpuMemoryUtil: 81,
        cpuUtil: 12,
        memoryUtil: 40,
      },
      {
        account: 'main',
        podId: 'b',
        observedAt: T0,
        state: 'unknown',
        uptimeS: null,
        gpuUtil: null,
        gpuMemoryUtil: null,
        maxGpuUtil: null,
        maxGpuMemoryUtil: null,
        cpuUtil: null,
        memoryUtil: null,
      },
    ]);
  });

  it('stores every sample of a poll written in multi-row batches and single rows alike, and a re-send replaces each', async () => {
    const database = temp.open();
    // 150 = two statements of 64 rows, then 16, 4 and 2; every 7th a two-GPU Pod, every 11th unknown.
    const poll = (offset: number) =>
      Array.from({ length: 150 }, (_, i) => {
        const known = i % 11 !== 0;
        const gpus = i % 7 === 0 ? [i % 100, (i + offset) % 100] : [(i + offset) % 100];
        return {
          podId: `pod-${String(i).padStart(3, '0')}`,
          observedAt: T0,
          state: known ? ('known' as const) : ('unknown' as const),
          uptimeS: known ? i * 60 + offset : null,
          gpuUtil: known ? gpus : null,
          gpuMemoryUtil: known ? gpus.map((value) => 100 - value) : null,
          cpuUtil: known ? i / 4 : null,
          memoryUtil: known ? offset : null,
        };
      });
    const expected = (offset: number) =>
      poll(offset).map((sample) => ({
        ...sample,
        account: 'main',
        maxGpuUtil: sample.gpuUtil ? Math.max(...sample.gpuUtil) : null,
        maxGpuMemoryUtil: sample.gpuMemoryUtil ? Math.max(...sample.gpuMemoryUtil) : null,
      }));
    expect(await insertPodSamples(database, 'main', poll(0))).toBe(150);
    expect(await podSamplesBetween(database, 'main', T0, T0)).toEqual(expected(0));
    // Re-sent from a later offset: the first 100 straddle a batch and the single rows.
    await insertPodSamples(database, 'main', poll(5).slice(30, 130));
    const mixed = expected(0);
    mixed.splice(30, 100, ...expected(5).slice(30, 130));
    expect(await podSamplesBetween(database, 'main', T0, T0)).toEqual(mixed);
    // Seven rows (4 + 2 + 1), the single row included.
    await insertPodSamples(database, 'main', poll(8).slice(140, 147));
    mixed.splice(140, 7, ...expected(8).slice(140, 147));
    expect(await podSamplesBetween(database, 'main', T0, T0)).toEqual(mixed);
  });

  it('stores a poll listed in any order, a Pod sampled twice keeping its later sample', async () => {
    const database = temp.open();
    const sample = (podId: string, uptimeS: number | null) => ({
      podId,
      observedAt: T0,
      state: uptimeS === null ? ('unknown' as const) : ('known' as const),
      uptimeS,
      gpuUtil: uptimeS === null ? null : [uptimeS % 100],
      gpuMemoryUtil: null,
      cpuUtil: null,
      memoryUtil: null,
    });
    // 100 Pods in descending order (a multi-row batch and single rows), pod-050 listed again last.
    const ids = Array.from({ length: 100 }, (_, i) => `pod-${String(99 - i).padStart(3, '0')}`);
    const poll = [...ids.map((podId, i) => sample(podId, i)), sample('pod-050', null)];
    expect(await insertPodSamples(database, 'main', poll)).toBe(101);
    const stored = await podSamplesBetween(database, 'main', T0, T0);
    expect(stored.map((row) => row.podId)).toEqual([...ids].sort());
    expect(stored.find((row) => row.podId === 'pod-050')).toMatchObject({ state: 'unknown', uptimeS: null });
    expect(stored.find((row) => row.podId === 'pod-051')).toMatchObject({ state: 'known', uptimeS: 48 });
  });

  it('stores an absent reading as SQL NULL, not the JSON text "null"', async () => {
    const database = temp.open();
    await insertPodSamples(database, 'main', [
      {
        podId: 'b',
        observedAt: T0,
        state: 'unknown',
        uptimeS: null,
        gpuUtil: null,
        gpuMemoryUtil: null,
        cpuUtil: null,
        memoryUtil: null,
      },
    ]);
    expect(
      database.sqlite
        .prepare('SELECT gpu_util IS NULL AS gpu, gpu_memory_util IS NULL AS memory FROM pod_samples')
        .get(),
    ).toEqual({ gpu: 1, memory: 1 });
  });

  it('keeps per-GPU lists as JSON only when the busiest GPU does not say it all, and reads every shape back', async () => {
    const database = temp.open();
    const shapes: Array<[string, number[] | null, number[] | null]> = [
      ['one-gpu', [37], [12]],
      ['two-gpus', [0, 88], [5, 70]],
      ['cpu-only', [], []],
      ['partial', null, null],
    ];
    await insertPodSamples(
      database,
      'main',
      shapes.map(([podId, gpuUtil, gpuMemoryUtil]) => ({
        podId,
        observedAt: T0,
        state: 'known' as const,
        uptimeS: 5,
        gpuUtil,
        gpuMemoryUtil,
        cpuUtil: 1,
        memoryUtil: 2,
      })),
    );
    const stored = database.sqlite
      .prepare('SELECT pod_id, known, gpu_util, gpu_memory_util, max_gpu_util FROM pod_samples ORDER BY pod_id')
      .raw()
      .all();
    expect(stored).toEqual([
      ['cpu-only', 1, '[]', '[]', null],
      ['one-gpu', 1, null, null, 37],
      ['partial', 1, null, null, null],
      ['two-gpus', 1, '[0,88]', '[5,70]', 88],
    ]);
    const read = new Map((await podSamplesBetween(database, 'main', T0, T0)).map((s) => [s.podId, s]));
    for (const [podId, gpuUtil, gpuMemoryUtil] of shapes) {
      expect(read.get(podId)).toMatchObject({ state: 'known', gpuUtil, gpuMemoryUtil });
    }
  });

  it('reads the last N minutes of 2,000 Pods with one range scan of the primary key', async () => {
    const database = temp.open();
    const podIds = Array.from({ length: 2000 }, (_, i) => `pod-${String(i).padStart(4, '0')}`);
    for (let minute = 0; minute < 20; minute++) {
      await insertPodSamples(
        database,
        'main',
        podIds.map((podId) => ({
          podId,
          observedAt: T0 + minute * MINUTE,
          state: 'known' as const,
          uptimeS: minute * 60,
          gpuUtil: [minute],
          gpuMemoryUtil: [minute],
          cpuUtil: 1,
          memoryUtil: 1,
        })),
      );
    }
    const window = await podSamplesBetween(database, 'main', T0 + 10 * MINUTE, T0 + 19 * MINUTE);
    expect(window).toHaveLength(2000 * 10);
    expect(new Set(window.map((sample) => sample.maxGpuUtil))).toEqual(
      new Set([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]),
    );

    const plan = database.sqlite
      .prepare(
        `EXPLAIN QUERY PLAN SELECT * FROM pod_samples
         WHERE account = ? AND observed_at >= ? AND observed_at <= ? ORDER BY observed_at, pod_id`,
      )
      .all('main', 0, 1) as Array<{ detail: string }>;
    expect(plan.map((step) => step.detail)).toEqual([
      // WITHOUT ROWID: the key is the table, no second b-tree to look the row up in.
      'SEARCH pod_samples USING PRIMARY KEY (account=? AND observed_at>? AND observed_at<?)',
    ]);
  });
});
