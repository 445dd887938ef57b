import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { channelsOf } from '../../src/alerts/route.js';
import { loadConfig } from '../../src/config/load.js';
import { replayedAccounts, sandboxConfig } from '../../src/replay/sandbox-config.js';

const dir = mkdtempSync(join(tmpdir(), 'podwarden-sandbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A production-looking file: every address in it is one a backtest must not reach. */
function productionConfig() {
  const path = join(dir, 'prod.yaml');
  writeFileSync(
    path,
    [
      'accounts:',
      '  - name: research',
      '    apiKey: rpa_research_key_0001',
      '    restBaseUrl: https://runpod-proxy.corp.example/v2',
      '  - name: inference',
      '    apiKey: rpa_inference_key_0002',
      'api:',
      '  graphqlBaseUrl: https://graphql.corp.example/graphql',
      'email:',
      '  host: smtp.corp.example',
      '  user: podwarden',
      '  password: smtp-secret',
      '  from: podwarden@corp.example',
      '  to: [ml-oncall@corp.example]',
      'alerts:',
      '  route:',
      '    idle: [alertmanager]',
      '    budget: [email, alertmanager]',
      '  alertmanager:',
      '    urls: [https://am-1.corp.example, https://am-2.corp.example]',
      '    bearerToken: am-secret',
      '',
    ].join('\n'),
  );
  return loadConfig({ path, env: {} });
}

const worlds = [
  { restBaseUrl: 'http://127.0.0.1:1001/v2', graphqlUrl: 'http://127.0.0.1:1001/graphql' },
  { restBaseUrl: 'http://127.0.0.1:1002/v2', graphqlUrl: 'http://127.0.0.1:1002/graphql' },
];

describe('sandboxConfig', () => {
  const user = productionConfig();
  const sandbox = sandboxConfig(user, 'sim-key', worlds, {
    dbPath: join(dir, 'replay.db'),
    smtp: { host: '127.0.0.1', port: 2525 },
  });

  it('keeps every account by name, each on its own simulated world with the scenario key', () => {
    expect(replayedAccounts(user)).toEqual(['research', 'inference']);
    expect(
      sandbox.accounts.map(({ name, apiKey, restBaseUrl, graphqlBaseUrl }) => [
        name,
        apiKey,
        restBaseUrl,
        graphqlBaseUrl,
      ]),
    ).toEqual([
      ['research', 'sim-key', 'http://127.0.0.1:1001/v2', 'http://127.0.0.1:1001/graphql'],
      ['inference', 'sim-key', 'http://127.0.0.1:1002/v2', 'http://127.0.0.1:1002/graphql'],
    ]);
  });

  it('names no host, URL or secret of the file', () => {
    const text = JSON.stringify(sandbox);
    for (const leak of ['corp.example/', 'smtp.corp.example', 'am-1', 'am-2', 'smtp-secret', 'am-secret', 'rpa_']) {
      expect(text).not.toContain(leak);
    }
    expect(sandbox.email).toMatchObject({
      host: '127.0.0.1',
      port: 2525,
      secure: 'none',
      to: ['ml-oncall@corp.example'],
    });
    expect(sandbox.email.user).toBeUndefined();
    expect(sandbox.alerts.alertmanager).toBeUndefined();
  });

  it('routes by email what the file routes by email, and nothing to Alertmanager', () => {
    expect(channelsOf(sandbox, 'budget')).toEqual(['email']);
    expect(channelsOf(sandbox, 'idle')).toEqual([]);
    expect(channelsOf(sandbox, 'waste')).toEqual(['email']);
  });

  it('without a file, replays one account called sim', () => {
    const bare = sandboxConfig(undefined, 'sim-key', worlds.slice(0, 1), {
      dbPath: join(dir, 'bare.db'),
      smtp: { host: '127.0.0.1', port: 2525 },
    });
    expect(bare.accounts.map((account) => account.name)).toEqual(['sim']);
    expect(() =>
      sandboxConfig(user, 'sim-key', worlds.slice(0, 1), { dbPath: '', smtp: { host: '127.0.0.1', port: 2525 } }),
    ).toThrow(/2 accounts but 1 simulated worlds/);
  });
});
