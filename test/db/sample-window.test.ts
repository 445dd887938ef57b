import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/open.js';
import { insertPodSamples, type PodSampleInput } from '../../src/db/pods.js';
import { type SampleSeries, sampleWindow } from '../../src/db/sample-window.js';
import { tracedDatabase } from '../helpers/traced-database.js';
import { useTempDatabases } from './support.js';

const temp = useTempDatabases();
const MINUTE = 60_000;
const T0 = Date.parse('2026-11-02T12:00:30Z');
const ACCOUNT = 'main';

/** The daemon's database file, reached through a connection that records every statement it runs. */
function tracedFile(statements: string[]): { db: Database; path: string } {
  const path = join(temp.dir(), 'podwarden.db');
  openDatabase(path).close();
  return { db: tracedDatabase(path, statements), path };
}

function sample(podId: string, at: number, gpu: number[] | null, state: 'known' | 'unknown' = 'known'): PodSampleInput {
  return {
    podId,
    observedAt: at,
    state,
    uptimeS: state === 'known' ? Math.floor((at - T0) / 1000) + 600 : null,
    gpuUtil: gpu,
    gpuMemoryUtil: gpu === null ? null : gpu.map((util) => util / 2),
    cpuUtil: 10,
    memoryUtil: 20,
  };
}

const poll = (at: number) => [sample('p1', at, [3]), sample('p2', at, [90, 10]), sample('p3', at, null, 'unknown')];

/** What a window holds, as plain values (NaN compared as NaN). */
function held(series: ReadonlyMap<string, SampleSeries>) {
  return [...series.values()]
    .map((s) => ({
      podId: s.podId,
      observedAt: Array.from(s.observedAt).slice(s.start),
      known: Array.from(s.known).slice(s.start),
      uptimeS: Array.from(s.uptimeS).slice(s.start),
      maxGpuUtil: Array.from(s.maxGpuUtil).slice(s.start),
      maxGpuMemoryUtil: Array.from(s.maxGpuMemoryUtil).slice(s.start),
    }))
    .sort((a, b) => a.podId.localeCompare(b.podId));
}

describe('the sample window after writes', () => {
  it('holds what the database holds after a re-sent poll, a Pod listed twice and a failed insert', async () => {
    const statements: string[] = [];
    const { db, path } = tracedFile(statements);
    for (let m = 0; m < 5; m++) await insertPodSamples(db, ACCOUNT, poll(T0 + m * MINUTE));
    const read = (at: number) => sampleWindow(db, ACCOUNT, at - 30 * MINUTE, at);
    read(T0 + 4 * MINUTE + 30_000);
    const steps: Array<[string, number, () => Promise<unknown>]> = [
      ['re-sent with other figures', 5, () => insertPodSamples(db, ACCOUNT, poll(T0 + 4 * MINUTE).reverse())],
      [
        'a Pod listed twice',
        6,
        () => insertPodSamples(db, ACCOUNT, [...poll(T0 + 6 * MINUTE), sample('p1', T0 + 6 * MINUTE, [77])]),
      ],
      [
        'an insert failing half-way',
        7,
        async () => {
          // A sample without its Pod fails the insert: the poll's other samples roll back with it.
          const broken = { ...sample('p2', T0 + 7 * MINUTE, [1]), podId: undefined } as unknown as PodSampleInput;
          const failed = insertPodSamples(db, ACCOUNT, [sample('p1', T0 + 7 * MINUTE, [2]), broken]);
          await expect(failed).rejects.toThrow();
        },
      ],
      [
        'two polls before a read',
        9,
        () => Promise.all([8, 9].map((m) => insertPodSamples(db, ACCOUNT, poll(T0 + m * MINUTE)))),
      ],
    ];
    for (const [what, minute, write] of steps) {
      await write();
      const now = T0 + minute * MINUTE + 30_000;
      const other = openDatabase(path);
      expect({ what, held: held(await read(now)) }).toEqual({
        what,
        held: held(await sampleWindow(other, ACCOUNT, now - 30 * MINUTE, now)),
      });
      other.close();
    }
    // The rows as stored: p1 listed twice kept its second figure, the failed insert left nothing.
    const p1 = held(await read(T0 + 9 * MINUTE + 30_000)).find((s) => s.podId === 'p1');
    expect(p1?.observedAt).toEqual([0, 1, 2, 3, 4, 6, 8, 9].map((m) => T0 + m * MINUTE));
    expect(p1?.maxGpuUtil[5]).toBe(77);
  });
});

describe('the sample window read by rules with different spans', () => {
  it('holds the samples of the span asked for, as Pods stop reporting and a longer span comes', async () => {
    const { db } = tracedFile([]);
    let longest = 60 * MINUTE;
    for (let m = 0; m < 150; m++) {
      const at = T0 + m * MINUTE;
      // p3 stops reporting at minute 20: it leaves the window an hour later. A Pod re-sent late at minute 70.
      const rows = poll(at).filter((row) => row.podId !== 'p3' || m < 20);
      await insertPodSamples(db, ACCOUNT, rows);
      if (m === 70) await insertPodSamples(db, ACCOUNT, [sample('p2', at - 5 * MINUTE, [1, 1])]);
      if (m === 100) longest = 120 * MINUTE;
      const now = at + 30_000;
      // As in a tick: the waste rule's shorter span, then the idle rule's longer one.
      const short = await sampleWindow(db, ACCOUNT, now - 30 * MINUTE, now);
      const window = await sampleWindow(db, ACCOUNT, now - longest, now);
      for (const series of short.values())
        expect(series.observedAt[series.start]).toBeGreaterThanOrEqual(now - 30 * MINUTE);
      for (const series of window.values())
        expect(series.observedAt[series.start]).toBeGreaterThanOrEqual(now - longest);
      // Its last sample (minute 19) is in the hour's window up to minute 78, and in two hours' up to 138.
      expect(window.has('p3')).toBe(m <= 78 || (m >= 100 && m <= 138));
      if (m === 70) expect(window.get('p2')?.maxGpuUtil).toContain(1);
    }
  });
});
