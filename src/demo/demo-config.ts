import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { packagePath } from '../package-root.js';
import { registerSecret } from '../redact.js';

/** The demo's configuration file, shared with the compose `demo` profile. */
export const DEMO_CONFIG_PATH = packagePath('config', 'demo.yaml');

export interface DemoEndpoints {
  /** The embedded simulator's URLs and the scenario's key. */
  sim: { restBaseUrl: string; graphqlUrl: string; apiKey: string };
  /** The folder holding the demo's database and configuration (absolute). */
  dir: string;
  /** `host:port` for the metrics and status server (a real port: the emails' links name it). */
  listen: string;
  /** The embedded mail sink. */
  smtp: { host: string; port: number };
}

/**
 * Writes config/demo.yaml to `<dir>/podwarden.yaml` with the compose services' addresses replaced
 * by what `podwarden demo` started on loopback, and loads the daemon's configuration from it. The
 * file stays, so `why`, `snooze` and `silence --config <it>` read what the daemon ran on.
 */
export function writeDemoConfig(endpoints: DemoEndpoints): { path: string; config: Config } {
  const document = parseDocument(readFileSync(DEMO_CONFIG_PATH, 'utf8'));
  const accounts = document.getIn(['accounts']) as { items: unknown[] } | undefined;
  for (let index = 0; index < (accounts?.items.length ?? 0); index++) {
    document.setIn(['accounts', index, 'apiKey'], endpoints.sim.apiKey);
    document.setIn(['accounts', index, 'restBaseUrl'], endpoints.sim.restBaseUrl);
    document.setIn(['accounts', index, 'graphqlBaseUrl'], endpoints.sim.graphqlUrl);
  }
  const database = join(endpoints.dir, 'podwarden.db');
  document.setIn(['database', 'path'], database);
  document.setIn(['http', 'listen'], endpoints.listen);
  // The demo's emails carry Keep-running and Silence links; they must reach this very server.
  document.setIn(['http', 'publicUrl'], `http://${endpoints.listen}`);
  // The sink speaks plain SMTP on loopback, as Mailpit does in compose.
  document.setIn(['email', 'host'], endpoints.smtp.host);
  document.setIn(['email', 'port'], endpoints.smtp.port);
  document.setIn(['email', 'secure'], 'none');
  // The file names the compose stack's Alertmanager; the demo starts none, and posting to a host
  // that does not resolve would only fill its console with retries.
  document.deleteIn(['alerts', 'alertmanager']);
  document.commentBefore =
    ` Written by \`podwarden demo\` from config/demo.yaml, with the addresses of what it started\n` +
    ` (simulator, mail sink) and its database ${database}. Replaced by the next demo in this folder.\n` +
    `${document.commentBefore ?? ''}`;

  registerSecret(endpoints.sim.apiKey);
  const path = join(endpoints.dir, 'podwarden.yaml');
  writeFileSync(path, document.toString());
  return { path, config: loadConfig({ path, env: process.env }) };
}
