import { Gauge, Histogram } from 'prom-client';
import { counter, gauge } from './account-series.js';
import type { MetricsContext } from './source.js';

/** Seconds; RunPod answers most reads in well under a second, billing backfills take longer. */
const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The RunPod API as podwarden sees it: requests by templated route (bounded) and status from
 * the daemon's `api:request` events, and each account's rate-limit windows read from memory.
 */
export function registerApiMetrics({ registry, source, onClose }: MetricsContext): void {
  const requests = counter(registry, {
    name: 'podwarden_api_requests_total',
    help: 'HTTP exchanges with the RunPod API by account, templated route, method and status ("error" when no response came); a series appears with its first request.',
    labelNames: ['account', 'route', 'method', 'status'],
  });
  const duration = new Histogram({
    name: 'podwarden_api_request_duration_seconds',
    help: 'Time from sending a request to the RunPod API to its whole response, by account, templated route and method; a series appears with its first request.',
    labelNames: ['account', 'route', 'method'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });

  const windowGauge = (name: string, help: string, field: 'remaining' | 'quota') => {
    const series: Gauge<'account' | 'window'> = gauge(registry, {
      name,
      help,
      labelNames: ['account', 'window'],
      collect() {
        series.reset();
        for (const { account, windows } of source.rateLimits()) {
          for (const window of windows) {
            const value = window[field];
            if (value !== null) series.set({ account, window: window.window }, value);
          }
        }
      },
    });
  };
  windowGauge(
    'podwarden_api_rate_limit_remaining',
    'Requests left in a rate-limit window of the account as the API last reported it; absent before any report and once the window has reset unseen.',
    'remaining',
  );
  windowGauge(
    'podwarden_api_rate_limit_quota',
    'Requests allowed per rate-limit window of the account, from the RateLimit-Policy header; absent when the API published none.',
    'quota',
  );

  onClose(
    source.events.on('api:request', (event) => {
      const route = { account: event.account, route: event.route, method: event.method };
      requests.inc({ ...route, status: String(event.status) });
      duration.observe(route, event.durationMs / 1000);
    }),
  );
}
