import type { Config } from '../config/schema.js';
import type { EndpointRecord } from '../db/serverless.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { ResourceSpend } from '../db/spend.js';
import type { EndpointActivity } from '../db/waste.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { roughDuration, wasteFinding } from './waste-findings.js';

const HOUR_MS = 3_600_000;

/** An endpoint whose workers are up with no work, as its inputs say; the clock decides the rest. */
interface IdleEndpoint {
  endpointId: string;
  name: string;
  workersMin: number | null;
  up: number;
  idleSince: number;
  sinceIsLowerBound: boolean;
  perHour: number | null;
  cost: string;
}

/**
 * Serverless endpoints whose minimum workers are up with no work: the latest summary has workers
 * up and none running, and none has run for `endpointIdle`. The cost per day is the rate billed
 * over that idle time.
 */
export function idleEndpointFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  const { account, waste } = snapshot;
  if (!waste) return [];
  const { endpointIdleMs, recipients } = config.waste;
  const { windowStart, spend } = waste.endpointSpend;
  const idle = idleEndpoints(waste.endpointActivity, spend, waste.endpoints, windowStart);
  const findings: Finding[] = [];
  for (const endpoint of idle) {
    const { idleSince, up, perHour } = endpoint;
    if (now - idleSince < endpointIdleMs) continue;
    findings.push(
      wasteFinding({
        account,
        check: 'endpoint-idle',
        resource: { endpoint_id: endpoint.endpointId },
        summary:
          `Endpoint ${endpoint.name} (${endpoint.endpointId}): ${up} worker${up === 1 ? '' : 's'} up with no work ` +
          `for ${roughDuration(now - idleSince)}, ${endpoint.cost}`,
        details: {
          resourceId: endpoint.endpointId,
          resourceName: endpoint.name,
          since: idleSince,
          sinceIsLowerBound: endpoint.sinceIsLowerBound,
          evaluatedAt: now,
          costPerHour: perHour,
          costPerDay: perHour === null ? null : Math.round(perHour * 24 * 100) / 100,
          paidSoFar: perHour === null ? null : (perHour * (now - idleSince)) / HOUR_MS,
          sizeGb: null,
          workersUp: up,
          workersMin: endpoint.workersMin,
          hint: 'set workers.min to 0 if cold starts are acceptable',
        },
        recipients,
      }),
    );
  }
  return findings;
}

/** The endpoints with minimum workers up and none running, idle since when, and at what rate. */
function idleEndpoints(
  activity: readonly EndpointActivity[],
  billed: ReadonlyMap<string, ResourceSpend>,
  endpoints: readonly EndpointRecord[],
  windowStart: number,
): IdleEndpoint[] {
  const seenBy = new Map(activity.map((a) => [a.endpointId, a]));
  const idle: IdleEndpoint[] = [];
  for (const endpoint of endpoints) {
    const seen = seenBy.get(endpoint.endpointId);
    if (!seen || (endpoint.workersMin ?? 0) < 1) continue;
    const up = seen.idle + seen.initializing + seen.unhealthy;
    if (seen.running > 0 || up === 0) continue;
    const spend = billed.get(endpoint.endpointId);
    const perHour =
      spend && spend.coveredThrough > windowStart
        ? spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS)
        : null;
    idle.push({
      endpointId: endpoint.endpointId,
      name: endpoint.name,
      workersMin: endpoint.workersMin,
      up,
      idleSince: seen.lastBusyAt ?? seen.firstAt,
      sinceIsLowerBound: seen.lastBusyAt === null,
      perHour,
      cost: perHour === null ? 'cost not billed yet' : `${formatUsd(perHour * 24)}/day`,
    });
  }
  return idle;
}
