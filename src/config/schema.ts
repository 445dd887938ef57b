import { z } from 'zod';
import type { ParseContext } from './fields.js';
import { checkAccountReferences } from './references.js';
import { accountsSection } from './sections/accounts.js';
import { alertsSection } from './sections/alerts.js';
import { apiSection } from './sections/api.js';
import { budgetsSection } from './sections/budgets.js';
import { capacitySection } from './sections/capacity.js';
import { collectorsSection } from './sections/collectors.js';
import { databaseSection } from './sections/database.js';
import { emailSection } from './sections/email.js';
import { httpSection } from './sections/http.js';
import { idleSection } from './sections/idle.js';
import { logSection } from './sections/log.js';
import { ownersSection } from './sections/owners.js';
import { wasteSection } from './sections/waste.js';

/**
 * The configuration file, one section per file under sections/. Conventions every section keeps:
 *
 * - Unknown fields are errors (strict objects), at every depth.
 * - Every section but `accounts` is optional and every field in it has a default, so a file with
 *   only `accounts` is complete. A later section (budgets, idle, capacity, waste, alerts, email)
 *   is one more optional key here and touches no other section.
 * - Durations are written as strings (`30s`, `1h30m`, `14d`) and come out as milliseconds under
 *   the key with `Ms` appended: `retention.rawSamples: 14d` → `retention.rawSamplesMs: 1209600000`.
 *   A key ending in `Ms` therefore always holds a duration in milliseconds.
 * - Secrets (secret.ts) are written inline or as `<name>File` and come out under `<name>`.
 * - Relative paths (database, secret files) resolve against the config file's folder.
 * - `${VAR}` / `${VAR:-default}` in any string value are replaced from the environment before
 *   validation (interpolate.ts).
 *
 * Parsing reads secret files, so the schema is built for a context (the config's folder).
 */
export function configSchema(ctx: ParseContext) {
  return z
    .strictObject({
      accounts: accountsSection(ctx),
      alerts: alertsSection(ctx),
      api: apiSection,
      budgets: budgetsSection,
      capacity: capacitySection,
      collectors: collectorsSection,
      database: databaseSection(ctx),
      email: emailSection(ctx),
      http: httpSection(ctx),
      idle: idleSection,
      log: logSection,
      owners: ownersSection,
      waste: wasteSection,
    })
    .superRefine(checkAccountReferences)
    .transform((config) => ({
      ...config,
      // Each account comes out with its effective base URLs, so the API client reads one place.
      accounts: config.accounts.map((account) => ({
        ...account,
        restBaseUrl: account.restBaseUrl ?? config.api.restBaseUrl,
        graphqlBaseUrl: account.graphqlBaseUrl ?? config.api.graphqlBaseUrl,
      })),
    }));
}

export type Config = z.output<ReturnType<typeof configSchema>>;
export type AccountConfig = Config['accounts'][number];
