import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Config } from '../config/schema.js';
import { version } from '../package-root.js';
import { registerActionMetrics } from './actions.js';
import { registerAlertmanagerMetrics } from './alertmanager.js';
import { registerAlertMetrics } from './alerts.js';
import { registerApiMetrics } from './api.js';
import { registerBudgetMetrics } from './budgets.js';
import { registerCapacityMetrics } from './capacity.js';
import { registerCollectorMetrics } from './collectors.js';
import { registerDatabaseMetrics } from './database.js';
import { registerIdleMetrics } from './idle.js';
import { registerPodMetrics } from './pods.js';
import type { MetricsContext, MetricsSource } from './source.js';
import { registerSpendMetrics } from './spend.js';
import { registerUtilizationMetrics } from './utilization.js';

export interface Metrics {
  registry: Registry;
  /** Stops listening to the daemon's events; the registry stays readable. */
  close(): void;
}

/** Each area of metrics is one file with one register function, listed here in exposition order. */
const areas: ReadonlyArray<(context: MetricsContext) => void> = [
  registerPodMetrics,
  registerSpendMetrics,
  registerBudgetMetrics,
  registerUtilizationMetrics,
  registerIdleMetrics,
  registerCapacityMetrics,
  registerActionMetrics,
  registerAlertMetrics,
  registerAlertmanagerMetrics,
  registerCollectorMetrics,
  registerDatabaseMetrics,
  registerApiMetrics,
];

/**
 * podwarden's own registry (never prom-client's global one), with the process metrics beside
 * ours. Every `collect()` reads the database or memory only: a scrape never waits on RunPod.
 */
export function createMetrics(options: { source: MetricsSource; config: Config; clock: Clock }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'podwarden_build_info',
    help: 'Always 1: the podwarden version and the Node.js version it runs on.',
    labelNames: ['version', 'node_version'],
    registers: [registry],
  }).set({ version, node_version: process.versions.node }, 1);
  const disposers: Array<() => void> = [];
  const context: MetricsContext = { registry, ...options, onClose: (dispose) => disposers.push(dispose) };
  for (const register of areas) register(context);
  return {
    registry,
    close: () => {
      for (const dispose of disposers.splice(0)) dispose();
    },
  };
}
