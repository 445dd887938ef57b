import { describe, expect, it } from 'vitest';
import { type ParsedList, parseItems } from '../../src/api/parse.js';
import { DecodedPodList, PodListReader, recordOf } from '../../src/api/pod-list-text.js';
import { checkRuntime, withNewUptime } from '../../src/api/pod-runtime-check.js';
import { decodeSuccessBody } from '../../src/api/response.js';
import { Pod, PodRuntime } from '../../src/api/schemas.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { World } from '../../src/simulator/world.js';
import { HOUR, MINUTE } from '../simulator/world-fixtures.js';

/**
 * GET /pods read from its text, reusing last answer's checked Pods (pod-list-text.ts), must give
 * what JSON.parse and parseItems give, answer after answer, whatever changed in between.
 */

function expected(text: string): ParsedList<Pod> {
  return parseItems(Pod, 'pods', JSON.parse(text), 'GET /pods');
}

function listOf(reader: PodListReader, text: string): ParsedList<Pod> {
  const decoded = reader.decode(text);
  expect(decoded).toBeInstanceOf(DecodedPodList);
  return (decoded as DecodedPodList).list;
}

const smallTeam = new World(loadScenario(packagePath('config/scenarios', 'small-team.yaml')));
/** A running Pod's record as the simulator sends it. */
const template = (
  JSON.parse(smallTeam.podsJson(smallTeam.now() + HOUR, { includeClusterPods: false })) as Array<
    Record<string, unknown>
  >
).find((pod) => pod.status === 'RUNNING' && pod.runtime !== null) as Record<string, unknown>;

function record(id: string, uptime: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...template, id, name: id, runtime: { ...(template.runtime as object), uptime }, ...extra };
}

const body = (records: unknown[]) => JSON.stringify({ pods: records });

describe('GET /pods read from its text', () => {
  it('gives parseItems’ list every minute of the small-team day, keeping unchanged Pods as they were', () => {
    const scenario = loadScenario(packagePath('config/scenarios', 'small-team.yaml'));
    const world = new World(scenario);
    const reader = new PodListReader();
    let previous = new Map<string, Pod>();
    let kept = 0;
    let checked = 0;
    for (let t = scenario.startMs; t <= scenario.startMs + 24 * HOUR; t += 5 * MINUTE) {
      const text = `{"pods":${world.podsJson(t, { includeClusterPods: true })}}`;
      const list = listOf(reader, text);
      expect(list, `minute ${(t - scenario.startMs) / MINUTE}`).toEqual(expected(text));
      for (const pod of list.items) {
        if (previous.get(pod.id) === pod) kept++;
        checked++;
      }
      previous = new Map(list.items.map((pod) => [pod.id, pod]));
    }
    // Stopped Pods' records are the same text from one answer to the next: their Pod is kept.
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(checked);
  });

  it('reads a changed field outside runtime, a new runtime, and Pods created before the others', () => {
    const reader = new PodListReader();
    const first = [record('pod-a', 10), record('pod-b', 10), record('pod-c', 10)];
    const firstList = listOf(reader, body(first));
    const second = [record('pod-new', 1), record('pod-a', 70), record('pod-b', 10, { name: 'renamed' }), first[2]];
    const text = body(second);
    const list = listOf(reader, text);
    expect(list).toEqual(expected(text));
    expect(list.items.map((pod) => [pod.id, pod.name, pod.runtime?.uptime])).toEqual([
      ['pod-new', 'pod-new', 1],
      ['pod-a', 'pod-a', 70],
      ['pod-b', 'renamed', 10],
      ['pod-c', 'pod-c', 10],
    ]);
    // pod-c's text did not change although its place did: its Pod is last answer's.
    expect(list.items[3]).toBe(firstList.items[2]);
    // pod-a changed only in runtime: a new Pod of the same record; pod-b's record changed.
    expect(list.items[1]).not.toBe(firstList.items[0]);
    expect(recordOf(list.items[1] as Pod)).toBe(recordOf(firstList.items[0] as Pod));
    expect(recordOf(list.items[2] as Pod)).not.toBe(recordOf(firstList.items[1] as Pod));
  });

  it('reads the record whole when the text after a same or uptime-only runtime changed', () => {
    const reader = new PodListReader();
    const first = [record('pod-a', 10), record('pod-b', 10), record('pod-c', 10), record('pod-d', 10)];
    const firstList = listOf(reader, body(first));
    const later = { createdAt: '2020-01-01T00:00:00Z' };
    // pod-a: same runtime, later field changed; pod-b: uptime alone changed, later field too;
    // pod-c: uptime alone changed; pod-d: runtime followed by one more member.
    const second = [
      record('pod-a', 10, later),
      record('pod-b', 70, later),
      record('pod-c', 70),
      { ...record('pod-d', 10), runtime: { ...(record('pod-d', 10).runtime as object), extra: 1 } },
    ];
    const text = body(second);
    const list = listOf(reader, text);
    expect(list).toEqual(expected(text));
    expect(list.items.map((pod) => [pod.id, pod.createdAt, pod.runtime?.uptime])).toEqual([
      ['pod-a', later.createdAt, 10],
      ['pod-b', later.createdAt, 70],
      ['pod-c', (first[2] as { createdAt: string }).createdAt, 70],
      ['pod-d', (first[3] as { createdAt: string }).createdAt, 10],
    ]);
    expect(recordOf(list.items[0] as Pod)).not.toBe(recordOf(firstList.items[0] as Pod));
    expect(recordOf(list.items[1] as Pod)).not.toBe(recordOf(firstList.items[1] as Pod));
    expect(recordOf(list.items[2] as Pod)).toBe(recordOf(firstList.items[2] as Pod));
    expect(recordOf(list.items[3] as Pod)).toBe(recordOf(firstList.items[3] as Pod));
    // The same answer again: every Pod is this answer's own.
    const again = listOf(reader, text);
    expect(again.items.every((pod, index) => pod === list.items[index])).toBe(true);
  });

  it('rejects a Pod whose runtime went bad alone, named as parseItems names it', () => {
    const reader = new PodListReader();
    listOf(reader, body([record('pod-a', 10), record('pod-b', 10)]));
    const bad = record('pod-a', 10);
    const text = body([{ ...bad, runtime: { ...(bad.runtime as object), uptime: 'soon' } }, record('pod-b', 70)]);
    const list = listOf(reader, text);
    expect(list).toEqual(expected(text));
    expect(list.rejected.map((item) => [item.index, item.id, item.reason])).toEqual([
      [0, 'pod-a', 'response body pods[0].runtime.uptime: expected number, received string'],
    ]);
    expect(list.items.map((pod) => pod.id)).toEqual(['pod-b']);
  });

  it('throws JSON.parse’s own error for a body that is not JSON, even where the rest is last answer’s', () => {
    const reader = new PodListReader();
    const good = body([record('pod-a', 10)]);
    listOf(reader, good);
    const broken = good.replace('"uptime":10', '"uptime":1 0');
    const parseError = (() => {
      try {
        JSON.parse(broken);
      } catch (error) {
        return error as Error;
      }
      throw new Error('expected the body to be malformed');
    })();
    expect(() => reader.decode(broken)).toThrow(parseError.message);
    expect(() => reader.decode(`${good.slice(0, -1)},}`)).toThrow(SyntaxError);
  });

  it('reports a body that is not JSON as the server’s fault, and a bug of the reader as a bug', () => {
    const from = { url: 'https://rest.runpod.io/v1/pods' };
    const reader = new PodListReader();
    expect(decodeSuccessBody('GET /pods', 200, '{"pods":[', from, (text) => reader.decode(text))).toMatchObject({
      kind: 'contract',
      message: expect.stringMatching(/^response body is not valid JSON/),
    });
    const bug = new TypeError('Cannot read properties of undefined');
    const buggy = () => {
      throw bug;
    };
    expect(() => decodeSuccessBody('GET /pods', 200, '{"pods":[]}', from, buggy)).toThrow(bug);
  });

  it('reads a record with runtime written twice, or spelled with escapes, as JSON.parse does', () => {
    const reader = new PodListReader();
    const plain = JSON.stringify(record('pod-a', 10));
    const twice = plain.replace('"runtime":', '"runtime":null,"runtime":');
    const escaped = plain.replace('"runtime":', '"runtime":null,"\\u0072untime":');
    const escapedFirst = plain.replace('"runtime":', '"\\u0072untime":null,"runtime":');
    for (const text of [plain, twice, plain, escaped, plain, escapedFirst, plain].map((item) => `{"pods":[${item}]}`)) {
      expect(listOf(reader, text)).toEqual(expected(text));
    }
  });

  it('reads a runtime with uptime written twice as JSON.parse does (the last one), minute after minute', () => {
    const reader = new PodListReader();
    for (const spelling of ['"uptime"', '"upt\\u0069me"']) {
      for (const [first, later] of [
        [10, 99],
        [11, 99],
        [12, 98],
      ]) {
        const plain = JSON.stringify(record('pod-a', first as number));
        const twice = plain.replace(`"uptime":${first},`, `"uptime":${first},${spelling}:${later},`);
        const text = `{"pods":[${twice}]}`;
        const list = listOf(reader, text);
        expect(list).toEqual(expected(text));
        expect(list.items[0]?.runtime?.uptime).toBe(later);
      }
    }
  });

  it('leaves a body of another shape to JSON.parse, whose answer parseItems then reads', () => {
    const reader = new PodListReader();
    for (const text of ['{"pods":[],"next":null}', '{"pods":{"id":"p1"}}', '[]', ' {"pods":[1]} ']) {
      expect(reader.decode(text)).toEqual(JSON.parse(text));
    }
    expect(listOf(reader, ' {\n"pods" : [ ] }\t')).toEqual({ items: [], rejected: [] });
  });
});

describe('a runtime checked by hand', () => {
  const schema = PodRuntime.nullable();
  const runtimes: unknown[] = [
    null,
    {},
    { uptime: 5 },
    { uptime: 5.5 },
    { uptime: null },
    { uptime: 2 ** 60, gpus: [] },
    { gpus: [{ util: 1, memoryUtil: 2 }, {}, { util: 3, extra: true }] },
    { gpus: [{ util: null }] },
    { gpus: [[]] },
    { gpus: {} },
    { cpu: { util: 1 }, memory: {} },
    { cpu: null },
    { cpu: [] },
    { memory: { util: '1' } },
    { ports: [{ private: 1, public: null, type: 'http', ip: null, extra: 1 }, {}] },
    { ports: [{ public: 1.5 }] },
    { ports: [{ type: 3 }] },
    { ports: [{ ip: 3 }] },
    { ports: [{ private: null }] },
    { ports: null },
    { ports: [null] },
    { other: 'kept out', uptime: 1 },
    [],
    'running',
    3,
  ];

  it.each(runtimes.map((runtime) => [JSON.stringify(runtime), runtime]))('%s as the schema reads it', (_, runtime) => {
    const result = schema.safeParse(runtime);
    expect(checkRuntime(runtime)).toEqual(result.success ? result.data : undefined);
  });
});

describe('a runtime that changed only in its uptime', () => {
  const rest = ',"gpus":[{"util":5,"memoryUtil":6}],"cpu":{"util":1},"ports":[]}';
  const last = `{"uptime":60${rest}`;
  const lastRuntime = PodRuntime.parse(JSON.parse(last));

  it.each([
    [`{"uptime":120${rest}`, 120],
    [`{"uptime":0${rest}`, 0],
    ['{"uptime":7}', undefined],
    [`{"uptime":007${rest}`, undefined],
    [`{"uptime":-5${rest}`, undefined],
    [`{"uptime":1e3${rest}`, undefined],
    [`{"uptime":12.5${rest}`, undefined],
    [`{"uptime": 120${rest}`, undefined],
    [`{"uptime":120${rest.replace('"util":5', '"util":50')}`, undefined],
    [`{"cpu":{"util":1},"uptime":120${rest.slice(rest.indexOf(',"gpus"'))}`, undefined],
  ])('%s', (text, uptime) => {
    const quick = withNewUptime(last, lastRuntime, text);
    if (uptime === undefined) {
      expect(quick).toBeUndefined();
      return;
    }
    expect(quick).toEqual(PodRuntime.parse(JSON.parse(text)));
    expect(quick?.uptime).toBe(uptime);
  });

  it('leaves a runtime with uptime written twice to JSON.parse, which takes the last one', () => {
    for (const spelling of ['"uptime"', '"upt\\u0069me"']) {
      const lastText = `{"uptime":60,${spelling}:5${rest}`;
      const previous = PodRuntime.parse(JSON.parse(lastText));
      const quick = withNewUptime(lastText, previous, lastText.replace('{"uptime":60,', '{"uptime":120,'));
      expect(quick).toBeUndefined();
    }
  });

  it('reads the uptime as JSON.parse does when last minute’s was written with a fraction or exponent', () => {
    for (const lastText of [`{"uptime":60.0${rest}`, `{"uptime":6e1${rest}`]) {
      const previous = PodRuntime.parse(JSON.parse(lastText));
      const text = lastText.replace(/^\{"uptime":6/, '{"uptime":7');
      const quick = withNewUptime(lastText, previous, text);
      expect(quick === undefined || quick.uptime === PodRuntime.parse(JSON.parse(text)).uptime).toBe(true);
    }
  });
});
