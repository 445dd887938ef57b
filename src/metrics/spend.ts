import { Gauge } from 'prom-client';
import { bucketFloor } from '../collectors/billing-windows.js';
import type { CollectorName } from '../collectors/collector.js';
import { sumBilling } from '../db/billing.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import { type BillingKind, billingKinds } from '../db/schema.js';
import { spendSince } from '../db/spend.js';
import { currentRates } from '../rules/current-rates.js';
import { periodBounds, periodsSummableFrom } from './periods.js';
import { accountNames, type MetricsContext } from './source.js';

/** What a resource without a price in its state (serverless, volumes, Public Endpoints) costs is its billed rate over this window. */
const BURN_WINDOW_MS = 24 * 3_600_000;

/** The collectors each kind's current rate rests on: without a success of each, the rate is unknown, not zero. */
const RATE_SOURCES: Readonly<Record<Exclude<BillingKind, 'account'>, readonly CollectorName[]>> = {
  pods: ['pods'],
  clusters: ['clusters', 'pods'],
  serverless: ['serverless', 'billing'],
  network_volumes: ['volumes', 'billing'],
  endpoints: ['billing'],
};

/** Every collector billed spend and the burn rates rest on: a run of any of them may change them. */
const SPEND_SOURCES: readonly CollectorName[] = [...new Set(Object.values(RATE_SOURCES).flat())];

/**
 * Spend as billing reported it, per account, billing kind and current UTC period. Absent for an
 * account whose billing collector never succeeded (unknown is not zero), and for a period the
 * configured bucket size cannot add up to exactly; an hour with no spend is an honest zero.
 * Beside it the burn rate: what each kind costs per hour now, read as the budget rule reads it.
 * Both are set when the data they rest on is collected; spend also on the first tick of a new
 * UTC day, when its periods start again.
 */
export function registerSpendMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const spend = new Gauge({
    name: 'podwarden_spend_dollars',
    help: 'Spend billing reported for the current UTC day or month so far, by billing kind (account is the whole account); absent until billing was collected, and for periods the bucket size does not fit.',
    labelNames: ['account', 'kind', 'period'],
    registers: [registry],
  });
  let spendDay: number | undefined;
  context.refreshOn(['billing', 'tick'], ({ trigger, now }) => {
    const day = periodBounds('day', now).from;
    if (trigger === 'tick' && day === spendDay) return;
    spendDay = day;
    spend.reset();
    if (!config.collectors.billing.enabled) return;
    const { bucketSize } = config.collectors.billing;
    for (const account of accountNames(config)) {
      if (lastSuccessAt(source.db, account, 'billing') === null) continue;
      for (const period of periodsSummableFrom(bucketSize)) {
        const { from, to } = periodBounds(period, now);
        for (const kind of billingKinds) {
          spend.set({ account, kind, period }, sumBilling(source.db, { account, kind, bucketSize, from, to }));
        }
      }
    }
  });

  const burn = new Gauge({
    name: 'podwarden_burn_rate_dollars_per_hour',
    help: "What the account's live resources of a billing kind cost per hour now: Pods and clusters from their cost field and volume disk, serverless, network volumes and Public Endpoints from their billed rate over the last day; absent until the collectors it rests on succeeded.",
    labelNames: ['account', 'kind'],
    registers: [registry],
  });
  context.refreshOn(SPEND_SOURCES, ({ now }) => {
    burn.reset();
    const { bucketSize } = config.collectors.billing;
    const windowStart = bucketFloor(now - BURN_WINDOW_MS, bucketSize);
    for (const account of accountNames(config)) {
      for (const [kind, collectors] of Object.entries(RATE_SOURCES) as Array<[BillingKind, CollectorName[]]>) {
        if (collectors.some((collector) => lastSuccessAt(source.db, account, collector) === null)) continue;
        const billed = spendSince(source.db, { account, kind, bucketSize, windowStart, now });
        let perHour = 0;
        for (const rate of currentRates(source.db, account, kind, billed, windowStart).values())
          perHour += rate.perHour;
        burn.set({ account, kind }, perHour);
      }
    }
  });
}
