import { ownerOf } from '../config/owner-of.js';
import type { BudgetConfig } from '../config/sections/budgets.js';
import type { OwnersConfig } from '../config/sections/owners.js';
import type { BillingKind } from '../db/schema.js';
import type { BudgetResources } from '../db/snapshot-budget.js';

/** Whether a budget chooses its resources by who owns them (`team`, `owner`). */
export function selectsByOwner(budget: Pick<BudgetConfig, 'team' | 'owner'>): boolean {
  return budget.team !== undefined || budget.owner !== undefined;
}

/**
 * Whether a resource has the budget's team and owner, as `owners` resolves them now from its
 * stored name and (a Pod's) env: ownership is config, so a changed rule re-sorts the whole
 * period's spend at the next evaluation. A resource whose name was never stored has none.
 */
export function ownedAsBudgetSays(
  budget: Pick<BudgetConfig, 'team' | 'owner'>,
  owners: OwnersConfig,
  live: BudgetResources | undefined,
  resource: { kind: BillingKind; resourceId: string },
): boolean {
  const name = live?.names.get(resource.kind)?.get(resource.resourceId) ?? null;
  const env = resource.kind === 'pods' ? (live?.env?.get(resource.resourceId) ?? null) : null;
  const { team, owner } = ownerOf(owners, { name, env });
  return (budget.team === undefined || team === budget.team) && (budget.owner === undefined || owner === budget.owner);
}
