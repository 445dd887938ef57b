import type { Simulator } from '../../src/simulator/server.js';

export interface RunConfigOptions {
  /** The scenario's API key, for the one account `team`. */
  apiKey: string;
  dbPath: string;
  /** http.listen; a free loopback port unless given. */
  listen?: string;
  bearerToken?: string;
  /** YAML appended after `log:` (collectors, budgets, email...), ending in a newline. */
  rest?: string;
}

/**
 * The configuration file a `podwarden run` test writes: the account `team` against the simulator,
 * its own database, the status server on loopback and JSON logs (which the tests read).
 */
export function runConfigYaml(sim: Pick<Simulator, 'restBaseUrl' | 'graphqlUrl'>, options: RunConfigOptions): string {
  const token = options.bearerToken === undefined ? '' : `  bearerToken: ${options.bearerToken}\n`;
  return `accounts:
  - name: team
    apiKey: ${options.apiKey}
    restBaseUrl: ${sim.restBaseUrl}
    graphqlBaseUrl: ${sim.graphqlUrl}
database:
  path: ${options.dbPath}
http:
  listen: ${options.listen ?? '127.0.0.1:0'}
${token}log:
  format: json
${options.rest ?? ''}`;
}
