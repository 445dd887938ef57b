import { HOUR_MS } from '../buckets.js';
import type { BudgetConfig } from '../config/sections/budgets.js';
import type { OwnersConfig } from '../config/sections/owners.js';
import type { BillingKind, BucketSize } from '../db/schema.js';
import { type BudgetReads, type BudgetResources, spendKey } from '../db/snapshot-budget.js';
import type { ResourceSpend, SpendQuery } from '../db/spend.js';
import { ownedAsBudgetSays, selectsByOwner } from './budget-owners.js';
import { currentRates } from './current-rates.js';
import { namePattern } from './idle-match.js';
import type { Period } from './period.js';

/** The billing kinds whose resources make up the whole account's bill. */
const RESOURCE_KINDS: readonly BillingKind[] = ['pods', 'serverless', 'network_volumes', 'clusters', 'endpoints'];

/** One resource inside a budget's scope: what billing says and what it has cost since. */
export interface ResourceCost {
  account: string;
  kind: BillingKind;
  resourceId: string;
  name: string;
  billedInPeriod: number;
  billedInWindow: number;
  /** What it costs now, USD per hour (0 once gone). */
  perHour: number;
  /** Spend not billed yet: from where its billing stops (or the period's start) until now. */
  unbilledInPeriod: number;
  unbilledInWindow: number;
}

/** A budget's scope in one account. */
export interface ScopeSpend {
  /** What billing reports for the period so far. */
  actual: number;
  billedInWindow: number;
  resources: ResourceCost[];
}

export interface SpendWindow {
  period: Period;
  /** Start of the burn-rate window (may lie in an earlier period). */
  windowStart: number;
  now: number;
  bucketSize: BucketSize;
}

/** What the budget rule reads: stored billing starts, each account's resources, the spend queried (`scopeQueries`). */
export type BudgetInputs = BudgetReads;

/** The spend queries `scopeSpend` reads the answers of, for one account. */
export function scopeQueries(account: string, budget: BudgetConfig, window: SpendWindow): SpendQuery[] {
  const queries = kindsOf(budget).map((kind) => query(account, kind, window));
  if (budget.scope === 'account') queries.push(query(account, 'account', window));
  return queries;
}

/**
 * The spend of a budget's scope in one account. The account scope reads its total from
 * `/billing` (every kind at once) and its resources from the per-kind routes, never adding the
 * two; a kind scope reads one route; ids and name patterns choose among its resources, and a
 * team or owner (resolved by `owners`) narrows them.
 */
export function scopeSpend(
  inputs: BudgetInputs,
  account: string,
  budget: BudgetConfig,
  window: SpendWindow,
  costs: KindCosts = new Map(),
  owners?: OwnersConfig,
): ScopeSpend {
  const resources = kindsOf(budget).flatMap((kind) => costsOf(costs, inputs, account, kind, window));
  if (budget.scope !== 'account') {
    const live = inputs.resources.get(account);
    const owned = (resource: ResourceCost) =>
      !selectsByOwner(budget) || (owners !== undefined && ownedAsBudgetSays(budget, owners, live, resource));
    const chosen = resources.filter((resource) => inScope(budget, resource) && owned(resource));
    return {
      actual: sum(chosen, (r) => r.billedInPeriod),
      billedInWindow: sum(chosen, (r) => r.billedInWindow),
      resources: chosen,
    };
  }
  const [total] = spendOf(inputs, query(account, 'account', window));
  return { actual: total?.periodAmount ?? 0, billedInWindow: total?.windowAmount ?? 0, resources };
}

/** The billing kinds whose resources a budget's scope holds. */
function kindsOf(budget: BudgetConfig): readonly BillingKind[] {
  return budget.scope === 'account' ? RESOURCE_KINDS : [budget.scope];
}

/** Whether the budget's ids or name pattern choose the resource (none given: every resource of its kind). */
export function inScope(
  budget: Pick<BudgetConfig, 'ids' | 'namePattern'>,
  resource: Pick<ResourceCost, 'resourceId' | 'name'>,
): boolean {
  if (budget.ids === undefined && budget.namePattern === undefined) return true;
  if (budget.ids?.includes(resource.resourceId)) return true;
  return budget.namePattern !== undefined && namePattern(budget.namePattern).test(resource.name);
}

function query(account: string, kind: BillingKind, window: SpendWindow): SpendQuery {
  return {
    account,
    kind,
    bucketSize: window.bucketSize,
    periodStart: window.period.startMs,
    periodEnd: window.period.endMs,
    windowStart: window.windowStart,
  };
}

/** The answer to a query of `scopeQueries`; none when it was not read (an account not in the snapshot). */
function spendOf(inputs: BudgetInputs, spendQuery: SpendQuery): readonly ResourceSpend[] {
  return inputs.spend.get(spendKey(spendQuery)) ?? [];
}

/**
 * The resource costs of each account, kind and window that one evaluation computed, by the key of
 * their spend query: budgets alike in all three (a month's account and Pods budgets) share them.
 * Made per evaluation and dropped with it; the costs are never changed once made.
 */
export type KindCosts = Map<string, readonly ResourceCost[]>;

function costsOf(
  costs: KindCosts,
  inputs: BudgetInputs,
  account: string,
  kind: BillingKind,
  window: SpendWindow,
): readonly ResourceCost[] {
  const key = `${spendKey(query(account, kind, window))}\u0000${window.now}`;
  let computed = costs.get(key);
  if (!computed) {
    computed = resourceCosts(inputs, account, kind, window);
    costs.set(key, computed);
  }
  return computed;
}

const NOTHING_LIVE: BudgetResources = { pods: [], clusters: [], endpoints: [], networkVolumes: [], names: new Map() };

function resourceCosts(inputs: BudgetInputs, account: string, kind: BillingKind, window: SpendWindow): ResourceCost[] {
  const billed = new Map<string, ResourceSpend>(
    spendOf(inputs, query(account, kind, window)).map((row) => [row.resourceId, row]),
  );
  const live = inputs.resources.get(account) ?? NOTHING_LIVE;
  const rates = currentRates(live, kind, billed, window.windowStart);
  const names = live.names.get(kind) ?? new Map<string, string>();
  const ids = new Set([...billed.keys(), ...rates.keys()]);
  const { now } = window;
  const costs: ResourceCost[] = [];
  for (const resourceId of ids) {
    const spend = billed.get(resourceId);
    const rate = rates.get(resourceId);
    const perHour = rate?.perHour ?? 0;
    // Unbilled time starts where the resource's billing stops, or where it began if never billed.
    const from = spend?.coveredThrough ?? rate?.since ?? now;
    costs.push({
      account,
      kind,
      resourceId,
      name: names.get(resourceId) ?? (kind === 'endpoints' ? 'Public Endpoints' : resourceId),
      billedInPeriod: spend?.periodAmount ?? 0,
      billedInWindow: spend?.windowAmount ?? 0,
      perHour,
      unbilledInPeriod: unbilledSince(perHour, from, window.period.startMs, now),
      unbilledInWindow: unbilledSince(perHour, from, window.windowStart, now),
    });
  }
  return costs;
}

/** What `perHour` has cost from the later of `start` and `from` until `now`. */
function unbilledSince(perHour: number, from: number, start: number, now: number): number {
  return (perHour * Math.max(0, now - Math.max(start, from))) / HOUR_MS;
}

export function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}
