import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { DEMO_CONFIG_PATH, writeDemoConfig } from '../../src/demo/demo-config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the configuration `podwarden demo` writes from config/demo.yaml', () => {
  it("drops the compose stack's Alertmanager, which the demo does not start, and keeps the rest", () => {
    // The compose `demo` profile posts to its Alertmanager from the same file.
    const shipped = parseYaml(readFileSync(DEMO_CONFIG_PATH, 'utf8'));
    expect(shipped.alerts.alertmanager.urls).toEqual(['http://alertmanager:9093']);

    const dir = mkdtempSync(join(tmpdir(), 'podwarden-demo-config-'));
    dirs.push(dir);
    const { config } = writeDemoConfig({
      sim: { restBaseUrl: 'http://127.0.0.1:1/v2', graphqlUrl: 'http://127.0.0.1:1/graphql', apiKey: 'sim-demo-key' },
      dir,
      listen: '127.0.0.1:2',
      smtp: { host: '127.0.0.1', port: 3 },
    });
    expect(config.alerts.alertmanager).toBeUndefined();
    expect(config.idle.rules.map((rule) => rule.name)).toEqual(['demo']);
    expect({ host: config.email.host, port: config.email.port }).toEqual({ host: '127.0.0.1', port: 3 });
  });
});
