import { join } from 'node:path';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { packagePath } from '../package-root.js';
import { registerSecret } from '../redact.js';

/** The demo's configuration file, shared with the compose `demo` profile. */
export const DEMO_CONFIG_PATH = packagePath('config', 'demo.yaml');

export interface DemoEndpoints {
  /** The embedded simulator's URLs and the scenario's key. */
  sim: { restBaseUrl: string; graphqlUrl: string; apiKey: string };
  /** The folder holding the demo's database. */
  dir: string;
  /** `host:port` for the metrics and status server. */
  listen: string;
  /** The embedded mail sink. */
  smtp: { host: string; port: number };
}

/**
 * config/demo.yaml with its addresses replaced by what `podwarden demo` started itself: the file
 * names the compose services (sim:8080, mailpit:1025), the demo runs everything on loopback.
 */
export function demoConfig(endpoints: DemoEndpoints): Config {
  const config = loadConfig({ path: DEMO_CONFIG_PATH, env: process.env });
  registerSecret(endpoints.sim.apiKey);
  config.accounts = config.accounts.map((account) => ({
    ...account,
    apiKey: endpoints.sim.apiKey,
    restBaseUrl: endpoints.sim.restBaseUrl,
    graphqlBaseUrl: endpoints.sim.graphqlUrl,
  }));
  config.database.path = join(endpoints.dir, 'podwarden.db');
  config.http.listen = endpoints.listen;
  // The sink speaks plain SMTP on loopback, as Mailpit does in compose.
  config.email = { ...config.email, host: endpoints.smtp.host, port: endpoints.smtp.port, secure: 'none' };
  return config;
}
