import type { z } from 'zod';

interface Referencing {
  accounts: Array<{ name: string }>;
  budgets: Array<{ account?: string }>;
  capacity: { watch: Array<{ account?: string }> };
}

/**
 * Sections that name an account (a budget, a capacity watch) must name a configured one: a typo
 * would otherwise make a budget that never counts a cent, silently.
 */
export function checkAccountReferences(config: Referencing, ctx: z.RefinementCtx): void {
  const known = new Set(config.accounts.map((account) => account.name));
  const configured = [...known].join(', ');
  const check = (account: string | undefined, path: Array<string | number>) => {
    if (account === undefined || known.has(account)) return;
    ctx.addIssue({ code: 'custom', path, message: `unknown account "${account}" (configured: ${configured})` });
  };
  for (const [index, budget] of config.budgets.entries()) check(budget.account, ['budgets', index, 'account']);
  for (const [index, watch] of config.capacity.watch.entries()) {
    check(watch.account, ['capacity', 'watch', index, 'account']);
  }
}
