import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { CollectorName } from '../collectors/collector.js';
import type { ConfigReloadStatus } from '../config/reload-status.js';
import type { Config } from '../config/schema.js';
import { version } from '../package-root.js';
import { gauge } from './account-series.js';
import { registerActionMetrics } from './actions.js';
import { registerAlertmanagerMetrics } from './alertmanager.js';
import { registerAlertMetrics } from './alerts.js';
import { registerApiMetrics } from './api.js';
import { registerBudgetMetrics } from './budgets.js';
import { registerCapacityMetrics } from './capacity.js';
import { registerCollectorMetrics } from './collectors.js';
import { registerConfigReloadMetrics } from './config-reload.js';
import { registerDatabaseMetrics } from './database.js';
import { registerIdleMetrics } from './idle.js';
import { registerIdleUnjudgedMetrics } from './idle-unjudged.js';
import { registerNotificationMetrics } from './notifications.js';
import { registerPodMetrics } from './pods.js';
import { registerSavingsMetrics } from './savings.js';
import type { MetricsContext, MetricsSource, Refresh, RefreshTrigger } from './source.js';
import { registerSpendMetrics } from './spend.js';
import { registerTeamSpendMetrics } from './team-spend.js';
import { registerUtilizationMetrics } from './utilization.js';

export interface Metrics {
  /** Its `metrics()` waits for a refresh in progress, then serializes what the refresh set. */
  registry: Registry;
  /** Stops listening to the daemon's events; the registry stays readable. */
  close(): void;
}

/** Each area of metrics is one file with one register function, listed here in exposition order. */
const areas: ReadonlyArray<(context: MetricsContext) => void> = [
  registerPodMetrics,
  registerSpendMetrics,
  registerTeamSpendMetrics,
  registerBudgetMetrics,
  registerUtilizationMetrics,
  registerIdleMetrics,
  registerIdleUnjudgedMetrics,
  registerCapacityMetrics,
  registerActionMetrics,
  registerSavingsMetrics,
  registerAlertMetrics,
  registerNotificationMetrics,
  registerAlertmanagerMetrics,
  registerCollectorMetrics,
  registerDatabaseMetrics,
  registerApiMetrics,
  registerConfigReloadMetrics,
];

/** podwarden's own registry; values are set when the database changes, so a scrape reads none of it. */
export function createMetrics(options: {
  source: MetricsSource;
  config: Config;
  clock: Clock;
  reloads?: () => ConfigReloadStatus;
}): Metrics {
  // Refreshes run one after another, in the order of their events, so two never interleave
  // their clear-and-set of one series; a scrape waits for the last one started.
  let refreshing: Promise<void> = Promise.resolve();
  let started: Promise<void> = Promise.resolve();
  const ready = () => refreshing.then(() => started);
  const registry = new RefreshedRegistry(ready);
  collectDefaultMetrics({ register: registry });
  gauge(registry, {
    name: 'podwarden_build_info',
    help: 'Always 1: the podwarden version and the Node.js version it runs on.',
    labelNames: ['version', 'node_version'],
  }).set({ version, node_version: process.versions.node }, 1);
  const disposers: Array<() => void> = [];
  const refreshers: Array<{ triggers: readonly RefreshTrigger[]; refresh: (at: Refresh) => void | Promise<void> }> = [];
  const context: MetricsContext = {
    registry,
    ...options,
    onClose: (dispose) => disposers.push(dispose),
    refreshOn: (triggers, refresh) => refreshers.push({ triggers, refresh }),
  };
  for (const register of areas) register(context);
  // One failing area leaves its values as they were and the others still refresh; the first
  // error rejects, for the event bus to log.
  const runRefresh = async (at: Refresh) => {
    const errors: unknown[] = [];
    for (const refresher of refreshers) {
      if (at.trigger !== 'start' && !refresher.triggers.includes(at.trigger)) continue;
      try {
        await refresher.refresh(at);
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  };
  const refresh = (at: Refresh): Promise<void> => {
    const run = refreshing.then(() => runRefresh(at));
    refreshing = run.catch(() => undefined);
    return run;
  };
  // A failing first refresh fails the scrapes (it used to fail the creation), never silently.
  started = refresh({ trigger: 'start', now: options.clock.now() });
  void started.catch(() => undefined);
  const { events } = options.source;
  disposers.push(
    events.on('collector:finished', (report) =>
      refresh({ trigger: report.collector as CollectorName, now: report.endedAt, account: report.account }),
    ),
    events.on('evaluation:finished', (tick) => refresh({ trigger: 'tick', now: tick.at })),
  );
  return {
    registry,
    close: () => {
      for (const dispose of disposers.splice(0)) dispose();
    },
  };
}

/** A registry whose serializations first wait for the refresh in progress: a scrape runs no SQL. */
class RefreshedRegistry extends Registry {
  constructor(private readonly refreshing: () => Promise<void>) {
    super();
  }

  override async metrics(): Promise<string> {
    await this.refreshing();
    return super.metrics();
  }

  override async getMetricsAsJSON(): ReturnType<Registry['getMetricsAsJSON']> {
    await this.refreshing();
    return super.getMetricsAsJSON();
  }
}
