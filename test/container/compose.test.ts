import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { parseListen } from '../../src/config/sections/http.js';
import { packagePath } from '../../src/package-root.js';
import { loadScenario } from '../../src/simulator/scenario.js';
import { hasPeer } from '../helpers/peers.js';

/** No Docker engine runs here, so the file is checked as data: what `docker compose config` would read. */
interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: string[] | Record<string, { condition: string }>;
  networks?: Record<string, { aliases?: string[] }>;
  healthcheck?: { test: string[] };
}

const COMPOSE_DIR = packagePath('config');
const compose = parseYaml(readFileSync(join(COMPOSE_DIR, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;

function service(name: string): Service {
  const found = services[name];
  expect(found, `service ${name}`).toBeDefined();
  return found as Service;
}

/** Names a container is reachable by on the compose network: its service name and aliases. */
function hostnames(name: string): string[] {
  return [name, ...Object.values(service(name).networks ?? {}).flatMap((network) => network.aliases ?? [])];
}

/** `./prometheus:/etc/prometheus:ro` → its parts; a named volume has no `./`. */
function mount(spec: string): { source: string; target: string; bind: boolean } {
  const [source = '', target = ''] = spec.split(':');
  return { source, target, bind: source.startsWith('.') || source.startsWith('/') };
}

/** podwarden's alerts reach the stack's Alertmanager, on the port it listens on, through every rule's route. */
function expectPostsToTheAlertmanager(config: Config): void {
  const urls = (config.alerts.alertmanager?.urls ?? []).map((url) => new URL(url));
  expect(urls).toHaveLength(1);
  expect(hostnames('alertmanager')).toContain(urls[0]?.hostname);
  expect(service('alertmanager').ports).toContain(`${urls[0]?.port}:${urls[0]?.port}`);
  // No rule is routed away from it (a rule not listed goes to every channel configured).
  for (const channels of Object.values(config.alerts.route)) expect(channels).toContain('alertmanager');
}

function commandOption(command: string[] | undefined, option: string): string | undefined {
  const index = command?.indexOf(option) ?? -1;
  return index >= 0 ? command?.[index + 1] : undefined;
}

describe('config/docker-compose.yml', () => {
  it('has the daemon, the simulator, Prometheus, Grafana and a mail catcher, in their profiles', () => {
    const profiles = Object.fromEntries(
      Object.entries(services).map(([name, definition]) => [name, definition.profiles ?? []]),
    );
    expect(profiles).toEqual({
      podwarden: ['live'],
      'podwarden-demo': ['demo'],
      sim: ['demo'],
      prometheus: [],
      grafana: [],
      alertmanager: [],
      mailpit: [],
    });
  });

  it('builds podwarden from the repository Dockerfile and pins every other image to a version', () => {
    for (const name of ['podwarden', 'podwarden-demo', 'sim']) {
      const { build, image } = service(name);
      expect(image).toBe('podwarden:local');
      expect(existsSync(join(COMPOSE_DIR, build?.context ?? '-', build?.dockerfile ?? '-'))).toBe(true);
    }
    expect(service('prometheus').image).toMatch(/^prom\/prometheus:v3\.\d+\.\d+$/);
    expect(service('grafana').image).toMatch(/^grafana\/grafana:1\d\.\d+\.\d+$/);
    expect(service('mailpit').image).toMatch(/^axllent\/mailpit:v1\.\d+\.\d+$/);
    expect(service('alertmanager').image).toMatch(/^prom\/alertmanager:v0\.\d+\.\d+$/);
  });

  it('publishes metrics, the simulator, Prometheus, Grafana and the mail UI', () => {
    const ports = Object.fromEntries(Object.entries(services).map(([name, definition]) => [name, definition.ports]));
    expect(ports).toEqual({
      podwarden: ['9464:9464'],
      'podwarden-demo': ['9464:9464'],
      sim: ['8080:8080'],
      prometheus: ['9090:9090'],
      grafana: ['3000:3000'],
      alertmanager: ['9093:9093'],
      mailpit: ['8025:8025'],
    });
  });

  it('mounts folders that exist and declares every named volume; podwarden keeps its data on /data', () => {
    for (const [name, definition] of Object.entries(services)) {
      for (const spec of definition.volumes ?? []) {
        const { source, bind } = mount(spec);
        if (bind) expect(existsSync(join(COMPOSE_DIR, source)), `${name} mounts ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes), `${name} uses volume ${source}`).toContain(source);
      }
    }
    expect(service('podwarden').volumes?.map((spec) => mount(spec).target)).toEqual([
      '/data',
      '/etc/podwarden/podwarden.yaml',
    ]);
    expect(service('podwarden-demo').volumes?.map((spec) => mount(spec).target)).toEqual(['/data']);
  });

  it('runs the simulator on the demo scenario from now and the demo daemon on the wall clock, as Prometheus does', () => {
    // Prometheus and Grafana stamp samples with the wall clock: a daemon on the scenario's own date
    // would look weeks stale there, so both the simulator and the daemon run on the wall clock.
    expect(service('sim').command).toEqual([
      'sim',
      '--scenario',
      'demo',
      '--start',
      'now',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
    ]);
    expect(service('sim').healthcheck?.test.join(' ')).toContain('http://127.0.0.1:8080/v2/');

    const demo = service('podwarden-demo');
    expect(demo.command?.[0]).toBe('run');
    const configInImage = commandOption(demo.command, '--config') ?? '';
    expect(configInImage).toBe('/app/config/demo.yaml');
    const scenario = loadScenario(packagePath('config/scenarios/demo.yaml'));
    expect(demo.command).not.toContain('--clock-start');
    expect(demo.depends_on).toEqual({
      sim: { condition: 'service_healthy' },
      mailpit: { condition: 'service_started' },
      alertmanager: { condition: 'service_started' },
    });

    // The image copies config/ to /app/config, so the file it names is this one.
    const config = loadConfig({ path: packagePath(configInImage.replace('/app/', '')), env: {} });
    const simUrl = new URL(config.accounts[0]?.restBaseUrl ?? '');
    expect(hostnames('sim')).toContain(simUrl.hostname);
    expect(simUrl.port).toBe(commandOption(service('sim').command, '--port'));
    expect(config.accounts[0]?.apiKey).toBe(scenario.apiKey);
    expect(hostnames('mailpit')).toContain(config.email.host);
    expect({ port: config.email.port, secure: config.email.secure }).toEqual({ port: 1025, secure: 'none' });
    expect(config.database.path.startsWith('/data/')).toBe(true);
    expect(parseListen(config.http.listen)?.port).toBe(9464);
    expectPostsToTheAlertmanager(config);
  });

  it("runs the live daemon on the stack's configuration: its account from the environment, mail to Mailpit, alerts to the Alertmanager", () => {
    const live = service('podwarden');
    expect(live.command).toBeUndefined();
    const configMount = live.volumes?.map(mount).find((m) => m.target === '/etc/podwarden/podwarden.yaml');
    expect(configMount?.bind).toBe(true);
    expect(live.depends_on).toEqual(['mailpit', 'alertmanager']);
    // The image's default is `run` with PODWARDEN_CONFIG=/etc/podwarden/podwarden.yaml: the mounted file.
    const dockerfile = readFileSync(packagePath('Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/PODWARDEN_CONFIG=\/etc\/podwarden\/podwarden\.yaml/);

    const config = loadConfig({
      path: join(COMPOSE_DIR, configMount?.source ?? '-'),
      env: { RUNPOD_API_KEY: 'rpa_compose_test_key' },
    });
    expect(config.accounts.map((account) => account.apiKey)).toEqual(['rpa_compose_test_key']);
    expect(hostnames('mailpit')).toContain(config.email.host);
    expect({ port: config.email.port, secure: config.email.secure }).toEqual({ port: 1025, secure: 'none' });
    expect(config.email.to.length).toBeGreaterThan(0);
    expect(config.database.path.startsWith('/data/')).toBe(true);
    expect(parseListen(config.http.listen)?.port).toBe(9464);
    expectPostsToTheAlertmanager(config);
  });

  it('lets Prometheus scrape podwarden by the name its configuration uses, in either profile', () => {
    expect(service('prometheus').volumes).toContain('./prometheus:/etc/prometheus:ro');
    const prometheus = parseYaml(readFileSync(join(COMPOSE_DIR, 'prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    const job = prometheus.scrape_configs.find((config) => config.job_name === 'podwarden');
    const targets = job?.static_configs.flatMap((config) => config.targets) ?? [];
    expect(targets).toEqual(['podwarden:9464']);
    expect(hostnames('podwarden')).toContain('podwarden');
    expect(hostnames('podwarden-demo')).toContain('podwarden');
  });

  it("sends Prometheus's own alerts (rules.yml) to the stack's Alertmanager", () => {
    const prometheus = parseYaml(readFileSync(join(COMPOSE_DIR, 'prometheus/prometheus.yml'), 'utf8')) as {
      alerting?: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    };
    const targets = prometheus.alerting?.alertmanagers.flatMap((a) => a.static_configs.flatMap((c) => c.targets));
    expect(targets).toEqual(['alertmanager:9093']);
    expect(hostnames('alertmanager')).toContain('alertmanager');
    expect(service('alertmanager').ports).toContain('9093:9093');
  });

  it('runs Alertmanager on the shipped configuration, mailing through Mailpit', () => {
    const alertmanager = service('alertmanager');
    expect(alertmanager.volumes).toContain('./alertmanager:/etc/alertmanager:ro');
    expect(
      commandOption(
        alertmanager.command?.flatMap((arg) => arg.split('=')),
        '--config.file',
      ),
    ).toBe('/etc/alertmanager/alertmanager.yml');
    const config = parseYaml(readFileSync(join(COMPOSE_DIR, 'alertmanager/alertmanager.yml'), 'utf8')) as {
      receivers: Array<{ email_configs?: Array<{ smarthost: string }> }>;
    };
    const smarthosts = config.receivers.flatMap((r) => r.email_configs ?? []).map((c) => c.smarthost);
    expect(smarthosts.length).toBeGreaterThan(0);
    for (const smarthost of smarthosts) expect(hostnames('mailpit')).toContain(smarthost.split(':')[0]);
  });

  it('provisions Grafana with the Prometheus datasource and the dashboards folder it mounts', () => {
    const grafana = service('grafana');
    const mounts = (grafana.volumes ?? []).map(mount);
    expect(mounts.find((m) => m.source === './grafana/provisioning')?.target).toBe('/etc/grafana/provisioning');
    const dashboards = mounts.find((m) => m.source === './grafana/dashboards');
    const provider = parseYaml(
      readFileSync(join(COMPOSE_DIR, 'grafana/provisioning/dashboards/podwarden.yml'), 'utf8'),
    ) as { providers: Array<{ options: { path: string } }> };
    expect(provider.providers.map((p) => p.options.path)).toEqual([dashboards?.target]);
    const datasources = parseYaml(
      readFileSync(join(COMPOSE_DIR, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8'),
    ) as { datasources: Array<{ url: string }> };
    const url = new URL(datasources.datasources[0]?.url ?? '');
    expect(hostnames('prometheus')).toContain(url.hostname);
    expect(service('prometheus').ports).toContain(`${url.port}:${url.port}`);
    const home = grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH ?? '';
    expect(existsSync(join(COMPOSE_DIR, 'grafana/dashboards', home.slice((dashboards?.target.length ?? 0) + 1)))).toBe(
      true,
    );
  });

  it.skipIf(!hasPeer('docker-compose', 'docker-compose'))(
    "is accepted by Debian's docker-compose 1.29 (`docker-compose config`), in both profiles",
    () => {
      for (const profile of ['demo', 'live']) {
        const result = spawnSync(
          'docker-compose',
          ['-p', 'podwarden', '-f', join(COMPOSE_DIR, 'docker-compose.yml'), '--profile', profile, 'config'],
          { encoding: 'utf8', env: { ...process.env, RUNPOD_API_KEY: 'unused' } },
        );
        expect(`${result.stderr}`, profile).not.toMatch(/invalid|error/i);
        expect(result.status, `${profile}: ${result.stderr}`).toBe(0);
        const resolved = parseYaml(result.stdout) as { services: Record<string, Service> };
        // 1.29's `config` prints every service whatever the profile; each keeps its profiles.
        expect(Object.keys(resolved.services).sort(), profile).toEqual(Object.keys(services).sort());
        expect(resolved.services.sim?.command, profile).toEqual(service('sim').command);
      }
    },
  );
});
