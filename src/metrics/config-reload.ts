import { gauge } from './account-series.js';
import type { MetricsContext } from './source.js';

/** Prometheus's names for the same facts, so the alerts people have for them fit; absent without a file. */
export function registerConfigReloadMetrics({ registry, reloads }: MetricsContext): void {
  if (reloads === undefined) return;
  gauge(registry, {
    name: 'podwarden_config_last_reload_successful',
    help: 'Whether the last configuration reload succeeded (1) or was refused, the running configuration kept (0); 1 from start.',
    collect() {
      this.set(reloads().successful ? 1 : 0);
    },
  });
  gauge(registry, {
    name: 'podwarden_config_last_reload_success_timestamp_seconds',
    help: 'When the configuration was last loaded successfully, at start or by a reload, as a Unix time.',
    collect() {
      this.set(reloads().lastSuccessAt / 1000);
    },
  });
}
