import type { SimReply } from './reply.js';
import { problem } from './rest-reply.js';
import type { Scenario } from './scenario.js';

export type Fault = Scenario['faults'][number];

/**
 * The faults that apply to one request: those whose path prefix matches and whose window
 * [from, to) holds `nowMs`. A delay first: latencies add up (two slow hops are slower than one);
 * then at most one way to break it (`breaking`): the first status, malformed or reset fault, in
 * scenario order, so overlapping windows stay predictable. `label` is for the request log
 * (`latency:3000+status:503`), undefined when nothing applies.
 */
export function planFaults(faults: readonly Fault[], path: string, nowMs: number) {
  const active = faults.filter((f) => path.startsWith(f.match) && nowMs >= f.fromMs && nowMs < f.toMs);
  const latencies = active.filter((f) => f.kind === 'latency');
  const latencyMs = latencies.reduce((sum, f) => sum + (f.ms ?? 0), 0);
  const breaking = active.find((f) => f.kind !== 'latency');
  const labels = [
    ...(latencyMs > 0 ? [`latency:${latencyMs}`] : []),
    ...(breaking ? [breaking.kind === 'status' ? `status:${breaking.status}` : breaking.kind] : []),
  ];
  return { latencyMs, breaking, label: labels.length > 0 ? labels.join('+') : undefined };
}

/** A body that starts like JSON and stops mid-record, as a proxy cutting a response would leave it. */
export const MALFORMED_BODY = '{"pods":[{"id":"7h9k2m4n6p","name":"pytorch-trai';

/**
 * The reply a breaking fault produces, or 'reset' when the connection must be dropped unanswered.
 * A 410 on /graphql says GraphQL was retired, the one way RunPod announced it would end.
 */
export function faultReply(fault: Fault, path: string, headers: Record<string, string>): SimReply | 'reset' {
  switch (fault.kind) {
    case 'reset':
      return 'reset';
    case 'malformed':
      return { status: 200, raw: MALFORMED_BODY, headers: { ...headers, 'Content-Type': 'application/json' } };
    default: {
      const status = fault.status ?? 503;
      const detail =
        status === 410 && path.startsWith('/graphql')
          ? 'The GraphQL API has been retired; use the REST API at /v2.'
          : `simulated fault on ${fault.match}`;
      return problem(status, detail, headers);
    }
  }
}
