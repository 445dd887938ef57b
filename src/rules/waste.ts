import type { Config } from '../config/schema.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import type { Finding } from './finding.js';
import { idleEndpointFindings } from './waste-endpoints.js';
import { stoppedPodVolumeFindings, unmountedVolumeFindings } from './waste-storage.js';
import { stuckPodFindings } from './waste-stuck.js';

/** The waste checks, each a pure function of the account's snapshot, configuration and `now`. */
const CHECKS = [idleEndpointFindings, unmountedVolumeFindings, stoppedPodVolumeFindings, stuckPodFindings];

/**
 * Money spent on nothing in every account: idle minimum workers, unmounted network volumes,
 * stopped Pods keeping a volume, Pods stuck without runtime. Each finding says what it costs.
 */
export function wasteFindings(snapshots: ReadonlyMap<string, AccountSnapshot>, config: Config, now: number): Finding[] {
  if (!config.waste.enabled) return [];
  return config.accounts.flatMap((account) => {
    const snapshot = snapshots.get(account.name);
    return snapshot ? CHECKS.flatMap((check) => check(snapshot, config, now)) : [];
  });
}
