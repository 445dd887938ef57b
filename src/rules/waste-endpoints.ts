import { bucketFloor } from '../collectors/billing-windows.js';
import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import { liveEndpoints } from '../db/serverless.js';
import { spendSince } from '../db/spend.js';
import { endpointActivity } from '../db/waste.js';
import { formatUsd } from '../messages/format.js';
import type { Finding } from './finding.js';
import { roughDuration, wasteFinding } from './waste-findings.js';

const HOUR_MS = 3_600_000;

/**
 * Serverless endpoints whose minimum workers are up with no work: the latest summary has workers
 * up and none running, and none has run for `endpointIdle`. The cost per day is the rate billed
 * over that idle time.
 */
export function idleEndpointFindings(database: Database, config: Config, account: string, now: number): Finding[] {
  const { endpointIdleMs, recipients } = config.waste;
  const bucketSize = config.collectors.billing.bucketSize;
  // Twice the threshold, so an endpoint idle all along shows samples reaching back far enough.
  const activity = new Map(endpointActivity(database, account, now - 2 * endpointIdleMs).map((a) => [a.endpointId, a]));
  const windowStart = bucketFloor(now - endpointIdleMs, bucketSize);
  const billed = spendSince(database, { account, kind: 'serverless', bucketSize, windowStart, now });
  const findings: Finding[] = [];
  for (const endpoint of liveEndpoints(database, account)) {
    const seen = activity.get(endpoint.endpointId);
    if (!seen || (endpoint.workersMin ?? 0) < 1) continue;
    const up = seen.idle + seen.initializing + seen.unhealthy;
    const idleSince = seen.lastBusyAt ?? seen.firstAt;
    if (seen.running > 0 || up === 0 || now - idleSince < endpointIdleMs) continue;
    const spend = billed.get(endpoint.endpointId);
    const perHour =
      spend && spend.coveredThrough > windowStart
        ? spend.windowAmount / ((spend.coveredThrough - windowStart) / HOUR_MS)
        : null;
    const cost = perHour === null ? 'cost not billed yet' : `${formatUsd(perHour * 24)}/day`;
    findings.push(
      wasteFinding({
        account,
        check: 'endpoint-idle',
        resource: { endpoint_id: endpoint.endpointId },
        summary:
          `Endpoint ${endpoint.name} (${endpoint.endpointId}): ${up} worker${up === 1 ? '' : 's'} up with no work ` +
          `for ${roughDuration(now - idleSince)}, ${cost}`,
        details: {
          resourceId: endpoint.endpointId,
          resourceName: endpoint.name,
          since: idleSince,
          sinceIsLowerBound: seen.lastBusyAt === null,
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
