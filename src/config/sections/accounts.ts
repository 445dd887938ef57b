import { z } from 'zod';
import { httpUrl, type ParseContext, uniqueNames } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';

/** The name is carried on every stored row and metric label, so it is kept label- and path-safe. */
const ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * `accounts`: the RunPod accounts to watch, at least one. Per-account base URLs override `api`'s
 * (the schema root fills them in, so every account comes out with both).
 */
export function accountsSection(ctx: ParseContext) {
  const account = withSecret(
    z.strictObject({
      name: z.string().regex(ACCOUNT_NAME, {
        error: (issue) =>
          `invalid account name "${String(issue.input)}" (expected lowercase letters, digits, "_" and "-", starting with a letter or digit)`,
      }),
      ...secretShape('apiKey', ctx),
      restBaseUrl: httpUrl().optional().describe("This account's REST base URL; absent: api.restBaseUrl."),
      graphqlBaseUrl: httpUrl().optional().describe("This account's GraphQL base URL; absent: api.graphqlBaseUrl."),
    }),
    'apiKey',
    { required: true },
  );
  return z
    .array(account)
    .min(1, { error: 'at least one account is required' })
    .superRefine(
      uniqueNames((name, first) => `duplicate account name "${name}" (also accounts[${first}].name)`),
      // Run even when an account has other problems, so a duplicate is reported in the same pass.
      { when: (payload) => Array.isArray(payload.value) },
    );
}
