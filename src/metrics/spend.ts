import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { bucketFloor, DAY_MS } from '../buckets.js';
import type { CollectorName } from '../collectors/collector.js';
import { collectorsFeeding } from '../collectors/index.js';
import { lastSuccessAt } from '../db/collector-runs.js';
import type { Database } from '../db/open.js';
import { livePods } from '../db/pods.js';
import {
  type BillingKind,
  billingKinds,
  billingRecords,
  clusters,
  endpoints,
  networkVolumes,
  pods,
} from '../db/schema.js';
import { type LiveResources, readLiveResources } from '../db/snapshot-budget.js';
import { spendByResource, spendSince } from '../db/spend.js';
import { currentRates } from '../rules/current-rates.js';
import { accountGauge } from './account-series.js';
import { periodBounds, periodsSummableFrom } from './periods.js';
import { type MetricsContext, refreshedAccounts } from './source.js';

/** What a resource without a price in its state (serverless, volumes, Public Endpoints) costs is its billed rate over this window. */
const BURN_WINDOW_MS = DAY_MS;

type RatedKind = Exclude<BillingKind, 'account'>;

/** The tables each kind's current rate reads: the live resources, and billing for those priced from it. */
const RATE_TABLES: Readonly<Record<RatedKind, readonly SQLiteTable[]>> = {
  pods: [pods],
  clusters: [clusters, pods],
  serverless: [endpoints, billingRecords],
  network_volumes: [networkVolumes, billingRecords],
  endpoints: [billingRecords],
};

/** The collectors each kind's current rate rests on: without a success of each, the rate is unknown, not zero. */
const RATE_SOURCES: ReadonlyMap<RatedKind, readonly CollectorName[]> = new Map(
  Object.entries(RATE_TABLES).map(([kind, tables]) => [kind as RatedKind, collectorsFeeding(...tables)]),
);

/** Every collector billed spend and the burn rates rest on: a run of any of them may change them. */
const SPEND_SOURCES: readonly CollectorName[] = [...new Set([...RATE_SOURCES.values()].flat())];

/**
 * Billed spend per current UTC period and the burn rate, read as the budget rule reads them.
 * Absent until billing succeeded (unknown is not zero); spend is set again on a new UTC day.
 */
export function registerSpendMetrics(context: MetricsContext): void {
  const { registry, source, config } = context;
  const spend = accountGauge(registry, {
    name: 'podwarden_spend_dollars',
    help: 'Spend billing reported for the current UTC day or month so far, by billing kind (account is the whole account); absent until billing was collected, and for periods the bucket size does not fit.',
    labelNames: ['account', 'kind', 'period'],
  });
  let spendDay: number | undefined;
  context.refreshOn([...collectorsFeeding(billingRecords), 'tick'], async (at) => {
    const day = periodBounds('day', at.now).from;
    if (at.trigger === 'tick' && day === spendDay) return;
    spendDay = day;
    const { bucketSize, enabled } = config.collectors.billing;
    for (const account of refreshedAccounts(config, at)) {
      const figures: Array<[Record<string, string>, number]> = [];
      if (enabled && (await lastSuccessAt(source.db, account, 'billing')) !== null) {
        for (const period of periodsSummableFrom(bucketSize)) {
          const { from, to } = periodBounds(period, at.now);
          for (const kind of billingKinds) {
            // The budget rule's reading (daily rollup plus the buckets of cut days): the same sum
            // as every bucket in the period, without reading a month of raw buckets.
            const resources = await spendByResource(source.db, {
              account,
              kind,
              bucketSize,
              periodStart: from,
              periodEnd: to,
              windowStart: from,
            });
            figures.push([{ account, kind, period }, resources.reduce((sum, r) => sum + r.periodAmount, 0)]);
          }
        }
      }
      spend.clear(account);
      for (const [labels, value] of figures) spend.set(account, labels, value);
    }
  });

  const burn = accountGauge(registry, {
    name: 'podwarden_burn_rate_dollars_per_hour',
    help: "What the account's live resources of a billing kind cost per hour now: Pods and clusters from their cost field and volume disk, serverless, network volumes and Public Endpoints from their billed rate over the last day; absent until the collectors it rests on succeeded.",
    labelNames: ['account', 'kind'],
  });
  context.refreshOn(SPEND_SOURCES, async (at) => {
    const { bucketSize } = config.collectors.billing;
    const windowStart = bucketFloor(at.now - BURN_WINDOW_MS, bucketSize);
    for (const account of refreshedAccounts(config, at)) {
      let live: LiveResources | undefined;
      for (const [kind, collectors] of RATE_SOURCES) {
        // A run changes the rates of the kinds resting on its collector only.
        if (at.trigger !== 'start' && !collectors.includes(at.trigger as CollectorName)) continue;
        const key = `${account}\u0000${kind}`;
        if (!(await allSucceeded(source.db, account, collectors))) {
          burn.clear(key);
          continue;
        }
        // Only the kinds priced from billing read the billed window (a Pod's rate is its cost field).
        const billed = RATE_TABLES[kind].includes(billingRecords)
          ? await spendSince(source.db, { account, kind, bucketSize, windowStart, now: at.now })
          : new Map();
        let perHour = 0;
        live ??= await readLiveResources(source.db, account, await livePods(source.db, account));
        for (const rate of currentRates(live, kind, billed, windowStart).values()) perHour += rate.perHour;
        burn.clear(key);
        burn.set(key, { account, kind }, perHour);
      }
    }
  });
}

/** Whether each of the collectors succeeded for the account at least once. */
async function allSucceeded(
  database: Database,
  account: string,
  collectors: readonly CollectorName[],
): Promise<boolean> {
  for (const collector of collectors) if ((await lastSuccessAt(database, account, collector)) === null) return false;
  return true;
}
