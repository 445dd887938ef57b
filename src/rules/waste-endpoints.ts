import type { Config } from '../config/schema.js';
import type { EndpointRecord } from '../db/serverless.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { EndpointActivity } from '../db/waste.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import { billedPerHour, roughDuration, wasteFinding } from './waste-findings.js';

/**
 * Serverless endpoints whose workers are up with no work: the latest summary has workers up and
 * none running, and none has run for the limit. With `workers.min` ≥ 1 that is the minimum
 * workers idle for `endpointIdle`; with `workers.min` 0 it is workers that do not scale down,
 * idle for `endpointScaleDown` past the endpoint's own idle timeout while billing shows them
 * paid for. The cost per day is the rate billed over the last `endpointIdle` (`endpointScaleDown`
 * for workers that should have stopped: their rate since they should have).
 */
export function idleEndpointFindings(snapshot: AccountSnapshot, config: Config, now: number): Finding[] {
  const { account, waste } = snapshot;
  if (!waste) return [];
  const { recipients } = config.waste;
  const seenBy = new Map(waste.endpointActivity.map((a) => [a.endpointId, a]));
  return waste.endpoints.flatMap((endpoint) => {
    const seen = seenBy.get(endpoint.endpointId);
    if (!seen) return [];
    const scaleToZero = (endpoint.workersMin ?? 0) < 1;
    const up = seen.idle + seen.initializing + seen.unhealthy;
    const idleSince = seen.lastBusyAt ?? seen.firstAt;
    if (seen.running > 0 || up === 0 || now - idleSince < limitOf(endpoint, scaleToZero, config)) return [];
    // Idle minimum workers bill steadily; workers that should have stopped, since the limit.
    const { windowStart, spend } = scaleToZero ? waste.scaleDownSpend : waste.endpointSpend;
    const perHour = billedPerHour(spend.get(endpoint.endpointId), windowStart);
    if (scaleToZero && !stillPaying(seen, perHour, config, now)) return [];
    const cost = perHour === null ? 'cost not billed yet' : `${formatUsd(perHour * 24)}/day`;
    const workers = `${up} worker${up === 1 ? '' : 's'} up with no work for ${roughDuration(now - idleSince)}`;
    return wasteFinding({
      account,
      check: 'endpoint-idle',
      resource: { endpoint_id: endpoint.endpointId },
      summary: scaleToZero
        ? `Endpoint ${endpoint.name} (${endpoint.endpointId}) does not scale to zero: ${workers} ` +
          `(workers.min 0), ${cost}`
        : `Endpoint ${endpoint.name} (${endpoint.endpointId}): ${workers}, ${cost}`,
      now,
      details: {
        resourceName: endpoint.name,
        since: idleSince,
        sinceIsLowerBound: seen.lastBusyAt === null,
        costPerHour: perHour,
        workersUp: up,
        workersMin: endpoint.workersMin,
        hint: scaleToZero
          ? 'its workers should have stopped after the idle timeout: look at the workers (a stuck worker, a ' +
            'handler that never returns) and terminate them'
          : 'set workers.min to 0 if cold starts are acceptable',
      },
      recipients,
    });
  });
}

/**
 * How long workers must have had no work: the minimum workers `endpointIdle`; workers of an
 * endpoint meant to scale to zero may idle its idle timeout after the last request before they
 * stop, so `endpointScaleDown` counts from the end of it.
 */
function limitOf(endpoint: EndpointRecord, scaleToZero: boolean, config: Config): number {
  const { endpointIdleMs, endpointScaleDownMs } = config.waste;
  return scaleToZero ? endpointScaleDownMs + (endpoint.idleTimeoutS ?? 0) * 1000 : endpointIdleMs;
}

/**
 * A scale-to-zero endpoint's workers are read only while billing shows them paid for: its latest
 * summary must be recent (half the limit; one no longer read says nothing of now), and billing
 * must show a rate, so it is the bill that says the idle workers cost money.
 */
function stillPaying(seen: EndpointActivity, perHour: number | null, config: Config, now: number): boolean {
  return now - seen.latestAt <= config.waste.endpointScaleDownMs / 2 && perHour !== null && perHour > 0;
}
