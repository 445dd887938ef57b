import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { PROMETHEUS_RULE_PATH, prometheusRuleYaml, RULES_PATH } from '../../scripts/kubernetes-prometheusrule.js';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/load.js';
import { parseListen } from '../../src/config/sections/http.js';
import { packagePath } from '../../src/package-root.js';
import { hasPeer } from '../helpers/peers.js';

/** A rendered object, as `kubectl kustomize` prints it. */
interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: each kind has its own shape; the schemas check it.
  [field: string]: any;
}

const BASE = packagePath('deploy/kubernetes');

/**
 * The runtime models of the Kubernetes API (kubernetes-models) and of the Prometheus Operator's
 * CRDs (@kubernetes-models/prometheus-operator): each class validates an object against its
 * OpenAPI schema. The module follows from the apiVersion, so every kind rendered is checked.
 */
async function validate(object: KubeObject): Promise<void> {
  const module = object.apiVersion.startsWith('monitoring.coreos.com/')
    ? `@kubernetes-models/prometheus-operator/${object.apiVersion}`
    : `kubernetes-models/${object.apiVersion}`;
  const models = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = models[object.kind];
  if (!Model) throw new Error(`${module} has no model of kind ${object.kind}`);
  new Model(object).validate();
}

function render(): KubeObject[] {
  const result = spawnSync('kubectl', ['kustomize', BASE], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${BASE} failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout).map((document) => document.toJS() as KubeObject);
}

function uidOfDockerfileUser(): number {
  const user = /^USER\s+(\d+)(?::(\d+))?\s*$/m.exec(readFileSync(packagePath('Dockerfile'), 'utf8'));
  expect(user, 'the Dockerfile names its user by number').not.toBeNull();
  return Number(user?.[1]);
}

describe('deploy/kubernetes: the PrometheusRule', () => {
  it('is generated from config/prometheus/rules.yml, the one source of the rules (npx tsx scripts/kubernetes-prometheusrule.ts)', () => {
    const shipped = readFileSync(PROMETHEUS_RULE_PATH, 'utf8');
    expect(shipped).toBe(prometheusRuleYaml(readFileSync(RULES_PATH, 'utf8')));
    const rules = parseYaml(readFileSync(RULES_PATH, 'utf8'));
    expect(parseYaml(shipped).spec.groups).toEqual(rules.groups);
  });
});

describe.skipIf(!hasPeer('kubectl', 'kubernetes-client', 'help'))(
  'deploy/kubernetes rendered by kubectl kustomize',
  () => {
    let objects: KubeObject[];
    let secretsDir: string;
    const byKind = (kind: string): KubeObject => {
      const found = objects.filter((object) => object.kind === kind);
      expect(found, kind).toHaveLength(1);
      return found[0] as KubeObject;
    };

    beforeAll(() => {
      objects = render();
      secretsDir = mkdtempSync(join(tmpdir(), 'podwarden-k8s-'));
    });
    afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

    it('renders the base: namespace, config, secrets, volume, Deployment, Service, ServiceMonitor, PrometheusRule', () => {
      expect(objects.map((object) => object.kind).sort()).toEqual(
        [
          'ConfigMap',
          'Deployment',
          'Namespace',
          'PersistentVolumeClaim',
          'PrometheusRule',
          'Secret',
          'Service',
          'ServiceMonitor',
        ].sort(),
      );
      for (const object of objects.filter((o) => o.kind !== 'Namespace')) {
        expect(object.metadata.namespace, object.kind).toBe(byKind('Namespace').metadata.name);
      }
    });

    it('validates every object against the Kubernetes and Prometheus Operator schemas', async () => {
      for (const object of objects) await expect(validate(object), object.kind).resolves.toBeUndefined();
    });

    it('refuses an object the schemas do not allow (the validation can fail)', async () => {
      const deployment = structuredClone(byKind('Deployment'));
      deployment.spec.template.spec.containers[0].ports[0].containerPort = 'http';
      await expect(validate(deployment)).rejects.toThrow(/containerPort/);
      const rule = structuredClone(byKind('PrometheusRule'));
      rule.spec.groups[0].rules[0].for = 'five minutes';
      await expect(validate(rule)).rejects.toThrow(/for/);
    });

    it('runs one non-root podwarden with a read-only root, writing only to its volumes, recreated rather than rolled', () => {
      const deployment = byKind('Deployment');
      expect(deployment.spec.replicas).toBe(1);
      // Two daemons must never decide on one SQLite file, not even during a rollout.
      expect(deployment.spec.strategy.type).toBe('Recreate');
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: uidOfDockerfileUser() });
      expect(pod.securityContext.fsGroup).toBe(pod.securityContext.runAsGroup);
      const [container, ...others] = pod.containers;
      expect(others).toEqual([]);
      expect(container.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources.limits.memory).toEqual(expect.any(String));
      const writable = container.volumeMounts.filter((mount: { readOnly?: boolean }) => !mount.readOnly);
      const volumeOf = (name: string) => pod.volumes.find((volume: { name: string }) => volume.name === name);
      expect(writable.map((mount: { mountPath: string }) => mount.mountPath).sort()).toEqual(['/data', '/tmp']);
      const data = volumeOf(writable.find((mount: { mountPath: string }) => mount.mountPath === '/data').name);
      expect(data.persistentVolumeClaim.claimName).toBe(byKind('PersistentVolumeClaim').metadata.name);
      // Secret files belong to root and the fsGroup: podwarden (not root) reads them through its group.
      const secrets = pod.volumes.find((volume: { secret?: unknown }) => volume.secret);
      expect(secrets.secret.defaultMode & 0o040, 'group-readable').toBe(0o040);
      expect(secrets.secret.defaultMode & 0o007, 'not world-readable').toBe(0);
      expect(byKind('PersistentVolumeClaim').spec.accessModes).toEqual(['ReadWriteOnce']);
    });

    it('probes /healthz for liveness and /readyz for readiness on the port the configuration listens on', () => {
      const container = byKind('Deployment').spec.template.spec.containers[0];
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      const port = container.ports.find((p: { name: string }) => p.name === container.readinessProbe.httpGet.port);
      expect(container.livenessProbe.httpGet.port).toBe(port.name);
      const config = loadRenderedConfig();
      expect(parseListen(config.http.listen)?.port).toBe(port.containerPort);
    });

    it('loads its configuration from the ConfigMap and every secret from a file of the Secret', () => {
      const container = byKind('Deployment').spec.template.spec.containers[0];
      const configPath = container.env.find((e: { name: string }) => e.name === 'PODWARDEN_CONFIG').value;
      const configMount = container.volumeMounts.find(
        (mount: { mountPath: string }) => mount.mountPath === posix.dirname(configPath),
      );
      const volume = byKind('Deployment').spec.template.spec.volumes.find(
        (v: { name: string }) => v.name === configMount.name,
      );
      expect(volume.configMap.name).toBe(byKind('ConfigMap').metadata.name);
      expect(Object.keys(byKind('ConfigMap').data)).toEqual([posix.basename(configPath)]);

      const config = loadRenderedConfig();
      expect(config.accounts[0]?.apiKey).toBe('secret:runpod-api-key');
      expect(config.http.linkSecret).toBe('secret:link-secret-of-sixteen-or-more');
      expect(config.email.password).toBe('secret:smtp-password');
      expect(posix.dirname(config.database.path)).toBe('/data');
      // The text names no secret inline: each is a file of the mounted Secret.
      const text = byKind('ConfigMap').data[posix.basename(configPath)] as string;
      expect(text).not.toMatch(/^\s*(apiKey|linkSecret|password|bearerToken):/m);
    });

    it('refuses to start on the placeholder link secret, rather than sign links with a published value', () => {
      const secret = byKind('Secret');
      expect(() => loadRenderedConfig(secret.stringData)).toThrow(ConfigError);
      expect(() => loadRenderedConfig(secret.stringData)).toThrow(/http\.linkSecret.*16 characters/);
    });

    it('lets the ServiceMonitor scrape /metrics through the Service as job "podwarden", the job the rules watch', () => {
      const service = byKind('Service');
      const podLabels = byKind('Deployment').spec.template.metadata.labels;
      expect(podLabels).toMatchObject(service.spec.selector);
      expect(byKind('Deployment').spec.selector.matchLabels).toEqual(service.spec.selector);
      const monitor = byKind('ServiceMonitor');
      expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
      expect(monitor.spec.endpoints.map((e: { port: string; path: string }) => [e.port, e.path])).toEqual([
        ['http', '/metrics'],
      ]);
      expect(service.spec.ports.map((p: { name: string; targetPort: string }) => [p.name, p.targetPort])).toEqual([
        ['http', 'http'],
      ]);
      // The operator names the job after the Service (no jobLabel set); rules.yml watches up{job="podwarden"}.
      expect(monitor.spec.jobLabel).toBeUndefined();
      expect(readFileSync(RULES_PATH, 'utf8')).toContain(`job="${service.metadata.name}"`);
    });

    it('ships the rules of config/prometheus/rules.yml as its PrometheusRule', () => {
      expect(byKind('PrometheusRule').spec.groups).toEqual(parseYaml(readFileSync(RULES_PATH, 'utf8')).groups);
    });

    /**
     * The rendered configuration as the Pod would read it: the Secret's files written where the
     * Deployment mounts them (under a scratch folder), with test values unless `values` are given.
     */
    function loadRenderedConfig(values?: Record<string, string>) {
      const pod = byKind('Deployment').spec.template.spec;
      const secret = byKind('Secret');
      const mount = pod.containers[0].volumeMounts.find(
        (m: { name: string }) =>
          pod.volumes.find((v: { name: string }) => v.name === m.name)?.secret?.secretName === secret.metadata.name,
      );
      expect(mount, 'the Secret is mounted').toBeDefined();
      const folder = join(secretsDir, mount.mountPath);
      const testValues: Record<string, string> = {
        'runpod-api-key': 'secret:runpod-api-key',
        'link-secret': 'secret:link-secret-of-sixteen-or-more',
        'smtp-password': 'secret:smtp-password',
      };
      expect(Object.keys(secret.stringData).sort()).toEqual(Object.keys(testValues).sort());
      for (const [key, value] of Object.entries(values ?? testValues)) {
        mkdirSync(dirname(join(folder, key)), { recursive: true });
        writeFileSync(join(folder, key), `${value}\n`);
      }
      const text = (Object.values(byKind('ConfigMap').data)[0] as string).replaceAll(
        `${mount.mountPath}/`,
        `${folder}/`,
      );
      return parseConfig(parseYaml(text), { env: {}, baseDir: secretsDir, source: 'deploy/kubernetes/podwarden.yaml' });
    }
  },
);
