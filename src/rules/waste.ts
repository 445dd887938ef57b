import type { Config } from '../config/schema.js';
import type { Database } from '../db/open.js';
import type { Evaluator } from './evaluator.js';
import type { Finding } from './finding.js';
import { idleEndpointFindings } from './waste-endpoints.js';
import { stoppedPodVolumeFindings, unmountedVolumeFindings } from './waste-storage.js';
import { stuckPodFindings } from './waste-stuck.js';

/** The waste checks, each a pure function of stored state, configuration and `now`. */
const CHECKS = [idleEndpointFindings, unmountedVolumeFindings, stoppedPodVolumeFindings, stuckPodFindings];

/**
 * Money spent on nothing in every account: idle minimum workers, unmounted network volumes,
 * stopped Pods keeping a volume, Pods stuck without runtime. Each finding says what it costs.
 */
export function wasteFindings(database: Database, config: Config, now: number): Finding[] {
  if (!config.waste.enabled) return [];
  return config.accounts.flatMap((account) => CHECKS.flatMap((check) => check(database, config, account.name, now)));
}

export const wasteEvaluator: Evaluator = {
  name: 'waste',
  async evaluate(ctx) {
    ctx.findings.push(...wasteFindings(ctx.db, ctx.config, ctx.now));
  },
};
