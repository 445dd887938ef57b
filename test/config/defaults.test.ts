import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig, parseConfig } from '../../src/config/load.js';
import { parseListen } from '../../src/config/sections/http.js';
import { problemsOf, scratchDir } from './support.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());

const minimal = { accounts: [{ name: 'main', apiKey: 'rpa_defaults_key_0001' }] };

describe('defaults', () => {
  it('fills every section from a file holding only accounts', () => {
    expect(parseConfig(minimal, { env: {}, baseDir: '/srv/podwarden' })).toEqual({
      accounts: [
        {
          name: 'main',
          apiKey: 'rpa_defaults_key_0001',
          restBaseUrl: 'https://api.runpod.io/v2',
          graphqlBaseUrl: 'https://api.runpod.io/graphql',
        },
      ],
      alerts: {
        groupWaitMs: 30_000,
        groupIntervalMs: 5 * 60_000,
        repeatIntervalMs: 4 * 3_600_000,
        groupBy: ['account', 'rule', 'budget'],
        inhibit: true,
        sendResolved: ['budget', 'waste', 'health'],
        noRepeat: ['budget', 'capacity', 'waste'],
        for: { healthMs: 30 * 60_000 },
        resolveAfter: { budgetMs: 0, idleMs: 15 * 60_000, capacityMs: 0, wasteMs: 30 * 60_000, healthMs: 5 * 60_000 },
        flapping: { count: 3, windowMs: 6 * 3_600_000 },
        route: {},
      },
      api: {
        restBaseUrl: 'https://api.runpod.io/v2',
        graphqlBaseUrl: 'https://api.runpod.io/graphql',
        graphqlAuth: 'header',
        graphql: { enabled: true },
        timeouts: { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 },
        retries: { max: 3, baseDelayMs: 1_000, maxDelayMs: 30_000 },
        concurrency: 4,
      },
      budgets: [],
      capacity: { watch: [] },
      collectors: {
        billing: {
          enabled: true,
          schedule: '*/15 * * * *',
          backfillMs: 30 * 86_400_000,
          trailingWindowMs: 48 * 3_600_000,
          bucketSize: 'hour',
        },
        catalog: { enabled: true, schedule: '*/5 * * * *', products: ['POD'] },
        clusters: { enabled: true, schedule: '*/5 * * * *' },
        pods: { enabled: true, schedule: '* * * * *' },
        serverless: { enabled: true, schedule: '*/5 * * * *' },
        stock: { enabled: true, schedule: '*/5 * * * *' },
        volumes: { enabled: true, schedule: '*/5 * * * *' },
      },
      database: {
        path: '/srv/podwarden/data/podwarden.db',
        retention: {
          rawSamplesMs: 2 * 86_400_000,
          fiveMinuteRollupsMs: 7 * 86_400_000,
          rollupsMs: 400 * 86_400_000,
          outboxMs: 30 * 86_400_000,
        },
      },
      email: { secure: 'starttls', port: 587, to: [], giveUpAfterMs: 86_400_000 },
      http: { listen: '0.0.0.0:9464', allowedHosts: [], trustedProxies: [], linkExpiryMs: 86_400_000 },
      idle: {
        rules: [
          {
            name: 'default',
            match: { podIds: [], names: [] },
            utilThreshold: 5,
            windowMs: 30 * 60_000,
            coverage: 0.9,
            minSamples: 3,
            graceMs: 15 * 60_000,
            heldIdle: { memoryThreshold: 10, stop: false },
            exclude: { podIds: [], names: [] },
            quietHours: [],
            actions: ['notify', 'warn', 'stop'],
            warnLeadMs: 15 * 60_000,
            dryRun: true,
            stopWithoutDeliveredWarning: false,
            caps: { stopsPerHour: 5, stopsPerEvaluation: 3, runningShare: 0.5 },
            stopWhenScarce: false,
          },
        ],
      },
      log: { level: 'info', format: 'auto' },
      owners: { fromEnv: { owner: [], team: [] }, fromName: [], default: {}, contacts: {} },
      waste: {
        enabled: true,
        endpointIdleMs: 6 * 3_600_000,
        volumeUnmountedMs: 7 * 86_400_000,
        stoppedPodVolumeMs: 3 * 86_400_000,
        stuckStartingMs: 30 * 60_000,
      },
    });
  });

  it('gives each parse its own default lists', () => {
    const first = parseConfig(minimal, { env: {}, baseDir: '/' });
    first.collectors.catalog.products.push('SERVERLESS');
    expect(parseConfig(minimal, { env: {}, baseDir: '/' }).collectors.catalog.products).toEqual(['POD']);
  });

  it('turns durations into milliseconds under keys ending in Ms', () => {
    const config = parseConfig(
      {
        ...minimal,
        api: { timeouts: { connect: '1500ms', body: '1h30m' } },
        collectors: { billing: { backfill: '2w' } },
      },
      { env: {}, baseDir: '/' },
    );
    expect(config.api.timeouts).toEqual({ connectMs: 1_500, headersMs: 30_000, bodyMs: 5_400_000 });
    expect(config.collectors.billing.backfillMs).toBe(14 * 86_400_000);
  });

  it('gives each account the shared base URLs unless it has its own, without trailing slashes', () => {
    const config = parseConfig(
      {
        accounts: [
          { name: 'main', apiKey: 'rpa_defaults_key_0001' },
          { name: 'lab', apiKey: 'rpa_defaults_key_0002', restBaseUrl: 'http://127.0.0.1:9000/v2/' },
        ],
        api: { graphqlBaseUrl: 'http://127.0.0.1:9001/graphql/' },
      },
      { env: {}, baseDir: '/' },
    );
    expect(config.accounts.map(({ restBaseUrl, graphqlBaseUrl }) => [restBaseUrl, graphqlBaseUrl])).toEqual([
      ['https://api.runpod.io/v2', 'http://127.0.0.1:9001/graphql'],
      ['http://127.0.0.1:9000/v2', 'http://127.0.0.1:9001/graphql'],
    ]);
  });

  it('keeps what is set and defaults the rest of a section', () => {
    const config = parseConfig(
      { ...minimal, collectors: { pods: { enabled: false }, clusters: { schedule: '*/30 * * * * *' } } },
      { env: {}, baseDir: '/' },
    );
    expect(config.collectors.pods).toEqual({ enabled: false, schedule: '* * * * *' });
    expect(config.collectors.clusters).toEqual({ enabled: true, schedule: '*/30 * * * * *' });
  });
});

describe('paths', () => {
  it('resolves a relative database path against the config file folder, not the working directory', () => {
    const file = scratch.write(
      'nested/podwarden.yaml',
      'accounts:\n  - name: main\n    apiKey: rpa_defaults_key_0001\n',
    );
    expect(loadConfig({ path: file, env: {} }).database.path).toBe(join(scratch.dir, 'nested/data/podwarden.db'));
  });

  it('keeps absolute database paths and :memory:', () => {
    const at = (path: string) =>
      parseConfig({ ...minimal, database: { path } }, { env: {}, baseDir: '/srv' }).database.path;
    expect(at('/var/lib/podwarden/pw.db')).toBe('/var/lib/podwarden/pw.db');
    expect(at('state/pw.db')).toBe('/srv/state/pw.db');
    expect(at(':memory:')).toBe(':memory:');
  });

  it('reads the file named by PODWARDEN_CONFIG, unless a path is passed', () => {
    const fromEnv = scratch.write('env.yaml', 'accounts:\n  - name: from-env\n    apiKey: rpa_defaults_key_0001\n');
    const fromFlag = scratch.write('flag.yaml', 'accounts:\n  - name: from-flag\n    apiKey: rpa_defaults_key_0001\n');
    expect(loadConfig({ env: { PODWARDEN_CONFIG: fromEnv } }).accounts[0]?.name).toBe('from-env');
    expect(loadConfig({ path: fromFlag, env: { PODWARDEN_CONFIG: fromEnv } }).accounts[0]?.name).toBe('from-flag');
  });
});

describe('defaultConfig', () => {
  it('builds a complete configuration for the given accounts', () => {
    const config = defaultConfig([
      { name: 'sim', apiKey: 'rpa_simulated_0001', restBaseUrl: 'http://127.0.0.1:4010/v2' },
    ]);
    expect(config.accounts).toEqual([
      {
        name: 'sim',
        apiKey: 'rpa_simulated_0001',
        restBaseUrl: 'http://127.0.0.1:4010/v2',
        graphqlBaseUrl: 'https://api.runpod.io/graphql',
      },
    ]);
    expect(config.collectors.pods.schedule).toBe('* * * * *');
    expect(config.database.path).toBe(join(process.cwd(), 'data/podwarden.db'));
  });

  it('rejects accounts the file would reject', () => {
    expect(problemsOf(() => defaultConfig([{ name: 'sim', apiKey: '' }]))).toEqual([
      { path: 'accounts[0].apiKey', message: 'must not be empty' },
    ]);
  });
});

describe('parseListen', () => {
  it('splits host and port, IPv6 in brackets', () => {
    expect(parseListen('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen('localhost:65535')).toEqual({ host: 'localhost', port: 65_535 });
    expect(parseListen(':9464')).toBeUndefined();
    expect(parseListen('::1:9464')).toBeUndefined();
  });
});
