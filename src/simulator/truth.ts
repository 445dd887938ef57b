import { toIso } from '../clock.js';
import { DurationError, parseDuration } from '../duration.js';
import type { SimReply } from './reply.js';
import type { RequestLog } from './request-log.js';
import { problem } from './rest-reply.js';
import { type AccruedFilter, BILLING_KINDS, type World } from './world.js';

/**
 * Ground truth for tests and reports, outside the RunPod API: no auth, no rate limits, no
 * faults, and not counted in the request log.
 *
 *   GET /_sim/clock            → { now, nowMs }: the simulator's virtual time
 *   GET /_sim/truth/pods       → { at, pods }: every Pod's real status (world.podStatuses)
 *   GET /_sim/truth/accrued?kind=&id=&from=&to= → { at, kind, id, from, to, accrued }: USD the
 *       world accrued in [from, to) up to now, per amount field (world.accrued). `kind` is a
 *       billing kind or all; `id` filters as its billing route does; `from`/`to` are RFC 3339
 *       times, epoch ms or offsets from the scenario's start (`2h`), by default start and now
 *   GET /_sim/requests?after=SEQ → { counts, entries }: the request log (after an entry)
 */
export interface TruthContext {
  world: World;
  requestLog: RequestLog;
  nowMs: number;
}

export function handleTruth(method: string, path: string, query: URLSearchParams, ctx: TruthContext): SimReply {
  if (method !== 'GET') return problem(405, `${path} only answers GET`, { Allow: 'GET' });
  const at = toIso(ctx.nowMs);
  switch (path) {
    case '/_sim/clock':
      return { status: 200, body: { now: at, nowMs: ctx.nowMs } };
    case '/_sim/truth/pods':
      return { status: 200, body: { at, pods: ctx.world.podStatuses(ctx.nowMs) } };
    case '/_sim/truth/accrued':
      return accrued(query, ctx, at);
    case '/_sim/requests': {
      const after = Number(query.get('after') ?? 0);
      if (!Number.isInteger(after) || after < 0)
        return problem(400, `after: expected a request seq, got ${query.get('after')}`);
      return { status: 200, body: { counts: ctx.requestLog.counts(), entries: ctx.requestLog.entries(after) } };
    }
    default:
      return problem(
        404,
        `no ground-truth route ${path}; see /_sim/clock, /_sim/truth/pods, /_sim/truth/accrued, /_sim/requests`,
      );
  }
}

function accrued(query: URLSearchParams, ctx: TruthContext, at: string): SimReply {
  const kind = query.get('kind');
  const kinds: string[] = [...BILLING_KINDS, 'all'];
  if (!kind || !kinds.includes(kind)) {
    return problem(400, `kind: expected one of ${kinds.join(', ')}, got ${kind === null ? 'nothing' : `"${kind}"`}`);
  }
  const id = query.get('id') ?? undefined;
  const startMs = ctx.world.scenario.startMs;
  const fromMs = timeParam(query.get('from'), 'from', startMs, startMs);
  const toMs = timeParam(query.get('to'), 'to', startMs, ctx.nowMs);
  if (typeof fromMs === 'string') return problem(400, fromMs);
  if (typeof toMs === 'string') return problem(400, toMs);
  if (toMs < fromMs) return problem(400, `to (${toIso(toMs)}) is before from (${toIso(fromMs)})`);
  const amount = ctx.world.accrued(ctx.nowMs, { kind: kind as AccruedFilter['kind'], id, fromMs, toMs });
  return { status: 200, body: { at, kind, id: id ?? null, from: toIso(fromMs), to: toIso(toMs), accrued: amount } };
}

/** An RFC 3339 time, epoch milliseconds, or an offset from the scenario's start; a string says what is wrong. */
function timeParam(text: string | null, name: string, startMs: number, fallback: number): number | string {
  if (text === null || text === '') return fallback;
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? `${name}: invalid time "${text}"` : ms;
  }
  if (/^-?\d+$/.test(text)) return Number(text);
  try {
    return startMs + parseDuration(text);
  } catch (error) {
    if (!(error instanceof DurationError)) throw error;
    return `${name}: expected an RFC 3339 time, epoch ms or an offset such as 2h, got "${text}"`;
  }
}
