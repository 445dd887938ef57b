import { PodRuntime } from './schemas.js';

/**
 * A Pod's `runtime` checked by hand where it is plainly valid, and by the schema otherwise. A
 * running Pod's runtime changes every minute (its uptime), so at `large` 1,200 of them are
 * checked again each poll; zod's object and transform machinery cost more than the decode. The
 * hand check accepts only what PodRuntime accepts and builds what its transform builds; anything
 * it is not sure of (a wrong type, a field it does not know the rule for) goes to the schema, so
 * the verdict and the output are the schema's own. test/api/pod-list-text.test.ts holds the two
 * to the same answer.
 */
const RuntimeField = PodRuntime.nullable();

/** The runtime as PodRuntime.nullable() makes it, or undefined when the schema rejects it. */
export function checkRuntime(raw: unknown): PodRuntime | null | undefined {
  if (raw === null) return null;
  const quick = quickRuntime(raw);
  if (quick !== undefined) return quick;
  const result = RuntimeField.safeParse(raw);
  return result.success ? result.data : undefined;
}

type Fields = Record<string, unknown>;

function quickRuntime(raw: unknown): PodRuntime | undefined {
  if (!isRecord(raw)) return undefined;
  const { uptime, gpus, cpu, memory, ports } = raw;
  if (!optionalInt(uptime)) return undefined;
  let gpuList: PodRuntime['gpus'] = null;
  if (gpus !== undefined) {
    if (!Array.isArray(gpus)) return undefined;
    gpuList = [];
    for (const gpu of gpus) {
      if (!isRecord(gpu) || !optionalInt(gpu.util) || !optionalInt(gpu.memoryUtil)) return undefined;
      gpuList.push({
        util: (gpu.util as number | undefined) ?? null,
        memoryUtil: (gpu.memoryUtil as number | undefined) ?? null,
      });
    }
  }
  const cpuUse = utilization(cpu);
  const memoryUse = utilization(memory);
  if (cpuUse === undefined || memoryUse === undefined) return undefined;
  let portList: PodRuntime['ports'] = [];
  if (ports !== undefined) {
    if (!Array.isArray(ports)) return undefined;
    portList = [];
    for (const port of ports) {
      if (!isRecord(port) || !optionalInt(port.private)) return undefined;
      if (port.public !== null && !optionalInt(port.public)) return undefined;
      if (port.type !== undefined && typeof port.type !== 'string') return undefined;
      if (port.ip !== undefined && port.ip !== null && typeof port.ip !== 'string') return undefined;
      // The schema's looseObject keeps unknown fields too: a copy with all of them.
      portList.push({ ...port });
    }
  }
  return {
    uptime: (uptime as number | undefined) ?? null,
    gpus: gpuList,
    cpu: cpuUse,
    memory: memoryUse,
    ports: portList,
  };
}

/** `cpu` or `memory`: absent is null; an object with an integer `util` or none. */
function utilization(value: unknown): { util: number | null } | null | undefined {
  if (value === undefined) return null;
  if (!isRecord(value) || !optionalInt(value.util)) return undefined;
  return { util: (value.util as number | undefined) ?? null };
}

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalInt(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isInteger(value));
}

const UPTIME_FIRST = '{"uptime":';

/**
 * The runtime of `text` when it is `lastText` (read as `last`) with only its leading uptime
 * changed, the usual minute of a running Pod: `{"uptime":N,` then the very same text. Undefined
 * for anything else (then the text is decoded and checked).
 */
export function withNewUptime(lastText: string, last: PodRuntime | null, text: string): PodRuntime | undefined {
  const found = newUptimeAt(text, 0, lastText, last);
  return found !== undefined && found.end === text.length ? found.runtime : undefined;
}

/**
 * The runtime value at `at` of `text` when it is `lastText` (read as `last`) with only its
 * leading uptime changed, and where that value ends; undefined for anything else. Found without
 * scanning the value: what follows the new digits is compared with what followed the old ones,
 * and a JSON value that reads the same after its number ends where the old one ended. The new
 * uptime is an integer written as JSON writes one (digits, no leading zero, then a comma or
 * brace), so the rest of the value reads as it did. A rest that names uptime again (or holds an
 * escape that could spell it) is left to the decode, where the last member wins.
 */
export function newUptimeAt(
  text: string,
  at: number,
  lastText: string,
  last: PodRuntime | null,
): { runtime: PodRuntime; end: number } | undefined {
  if (last === null || !text.startsWith(UPTIME_FIRST, at) || !lastText.startsWith(UPTIME_FIRST)) return undefined;
  const from = at + UPTIME_FIRST.length;
  const end = digitsEnd(text, from);
  const lastEnd = digitsEnd(lastText, UPTIME_FIRST.length);
  if (end === from || lastEnd === UPTIME_FIRST.length || (text.charCodeAt(from) === ZERO && end - from > 1)) {
    return undefined;
  }
  const after = text.charCodeAt(end);
  if (after !== COMMA && after !== CLOSE_BRACE) return undefined;
  const rest = lastText.slice(lastEnd);
  // A second uptime member (plainly or with escapes) is the one JSON.parse keeps: read it whole.
  if (rest.includes('uptime') || rest.includes('\\')) return undefined;
  const restEnd = end + rest.length;
  if (restEnd > text.length || text.slice(end, restEnd) !== rest) return undefined;
  return { runtime: { ...last, uptime: Number(text.slice(from, end)) }, end: restEnd };
}

const ZERO = 48;
const NINE = 57;
const COMMA = 44;
const CLOSE_BRACE = 125;

function digitsEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length && text.charCodeAt(at) >= ZERO && text.charCodeAt(at) <= NINE) at += 1;
  return at;
}
