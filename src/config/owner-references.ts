import type { z } from 'zod';
import { resolvesField } from './owner-sources.js';
import type { OwnerField, OwnersConfig } from './sections/owners.js';

interface Referencing {
  owners: OwnersConfig;
  budgets: Array<Partial<Record<OwnerField, string>>>;
}

const WORDS: Readonly<Record<OwnerField, { one: string; sources: string }>> = {
  team: {
    one: 'a team',
    sources: 'owners.fromEnv.team, an owners.fromName pattern with (?<team>…), or owners.default.team',
  },
  owner: {
    one: 'an owner',
    sources: 'owners.fromEnv.owner, an owners.fromName pattern with (?<owner>…), or owners.default.owner',
  },
};

/**
 * A budget by team or owner needs `owners` to say where teams or owners come from: without a
 * source, no resource ever has one and the budget would count nothing, silently.
 */
export function checkOwnerReferences(config: Referencing, ctx: z.RefinementCtx): void {
  for (const [index, budget] of config.budgets.entries()) {
    for (const field of ['team', 'owner'] as const) {
      if (budget[field] === undefined || resolvesField(config.owners, field)) continue;
      ctx.addIssue({
        code: 'custom',
        path: ['budgets', index, field],
        message: `budget by ${field} "${budget[field]}", but nothing gives resources ${WORDS[field].one}: configure ${WORDS[field].sources}`,
      });
    }
  }
}
