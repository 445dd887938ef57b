import { defaultConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { AlertChannel } from '../config/sections/channels.js';
import type { Simulator } from '../simulator/server.js';

/** The accounts a replay plays: every account of the file, or one called `sim` without a file. */
export function replayedAccounts(user: Config | undefined): string[] {
  return user ? user.accounts.map((account) => account.name) : ['sim'];
}

/**
 * The user's configuration turned into a sandbox: a backtest of a production file must reach
 * nothing the file names. Every account keeps its name (budgets and exclusions refer to it) but
 * talks to its own simulated world with the scenario's key; mail goes to `smtp` (the replay's
 * in-process sink) without the file's credentials; Alertmanager is left out, so no alert is
 * posted anywhere (a rule routed only to Alertmanager notifies nobody, as it would by email).
 * Every other channel (webhook, chat) stays as written: the replay captures its deliveries
 * (replay.ts), so its URLs are never called and the report lists what it would have received.
 */
export function sandboxConfig(
  user: Config | undefined,
  apiKey: string,
  apis: ReadonlyArray<Pick<Simulator, 'restBaseUrl' | 'graphqlUrl'>>,
  options: { dbPath: string; smtp: { host: string; port: number } },
): Config {
  const names = replayedAccounts(user);
  if (apis.length !== names.length) throw new Error(`${names.length} accounts but ${apis.length} simulated worlds`);
  // Each account talks to its own simulated world.
  const accounts = apis.map((api, index) => ({
    name: names[index] as string,
    apiKey,
    restBaseUrl: api.restBaseUrl,
    graphqlBaseUrl: api.graphqlUrl,
  }));
  const base = user ? structuredClone(user) : defaultConfig(accounts);
  base.accounts = defaultConfig(accounts).accounts;
  base.api = {
    ...base.api,
    restBaseUrl: accounts[0]?.restBaseUrl ?? '',
    graphqlBaseUrl: accounts[0]?.graphqlBaseUrl ?? '',
  };
  base.database.path = options.dbPath;
  const { user: _user, password: _password, ...email } = base.email;
  base.email = {
    ...email,
    host: options.smtp.host,
    port: options.smtp.port,
    secure: 'none',
    from: email.from ?? 'podwarden@replay.invalid',
    to: email.to.length > 0 ? email.to : ['you@replay.invalid'],
  };
  const { alertmanager: _alertmanager, ...alerts } = base.alerts;
  const route = Object.fromEntries(
    Object.entries(alerts.route as Partial<Record<string, AlertChannel[]>>).map(([rule, channels]) => [
      rule,
      channels?.filter((channel) => channel !== 'alertmanager'),
    ]),
  ) as Config['alerts']['route'];
  base.alerts = { ...alerts, route };
  return base;
}
