import type { Config } from '../config/schema.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { billedPerHour, roughDuration, wasteFinding } from './waste-findings.js';

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
  const seenBy = new Map(waste.endpointActivity.map((a) => [a.endpointId, a]));
  return waste.endpoints.flatMap((endpoint) => {
    const seen = seenBy.get(endpoint.endpointId);
    if (!seen || (endpoint.workersMin ?? 0) < 1) return [];
    const up = seen.idle + seen.initializing + seen.unhealthy;
    const idleSince = seen.lastBusyAt ?? seen.firstAt;
    if (seen.running > 0 || up === 0 || now - idleSince < endpointIdleMs) return [];
    const perHour = billedPerHour(spend.get(endpoint.endpointId), windowStart);
    const cost = perHour === null ? 'cost not billed yet' : `${formatUsd(perHour * 24)}/day`;
    return wasteFinding({
      account,
      check: 'endpoint-idle',
      resource: { endpoint_id: endpoint.endpointId },
      summary:
        `Endpoint ${endpoint.name} (${endpoint.endpointId}): ${up} worker${up === 1 ? '' : 's'} up with no work ` +
        `for ${roughDuration(now - idleSince)}, ${cost}`,
      now,
      details: {
        resourceName: endpoint.name,
        since: idleSince,
        sinceIsLowerBound: seen.lastBusyAt === null,
        costPerHour: perHour,
        workersUp: up,
        workersMin: endpoint.workersMin,
        hint: 'set workers.min to 0 if cold starts are acceptable',
      },
      recipients,
    });
  });
}
