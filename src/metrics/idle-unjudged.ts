import { gauge } from './account-series.js';
import { accountNames, type MetricsContext } from './source.js';

/**
 * Whether the idle rule could judge every Pod of an account at the latest tick. Each blind
 * stretch may be short, so Prometheus alerts on the share of an hour it is 1 (PodwardenIdleBlind).
 */
export function registerIdleUnjudgedMetrics({ registry, source, config, onClose }: MetricsContext): void {
  if (config.idle.rules.length === 0) return;
  const unjudged = gauge(registry, {
    name: 'podwarden_idle_unjudged',
    help: 'Whether the idle rule could not judge some Pod of the account at the latest evaluation (stale Pod data, missing telemetry, or evidence restarted by a telemetry gap not yet covering the window): 1, else 0; absent without idle rules.',
    labelNames: ['account'],
  });
  const accounts = accountNames(config);
  for (const account of accounts) unjudged.set({ account }, 0);
  onClose(
    source.events.on('evaluation:finished', (tick) => {
      const idle = tick.unjudged.filter((scope) => scope.labels.rule === 'idle');
      for (const account of accounts) {
        // A scope without an account (the idle evaluator failed) covers every account.
        const blind = idle.some((scope) => scope.labels.account === undefined || scope.labels.account === account);
        unjudged.set({ account }, blind ? 1 : 0);
      }
    }),
  );
}
