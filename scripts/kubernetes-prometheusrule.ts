/**
 * Writes deploy/kubernetes/prometheusrule.yaml: the Prometheus Operator's PrometheusRule holding
 * exactly the groups of config/prometheus/rules.yml, the one source of podwarden's Prometheus
 * rules. test/deploy/kubernetes.test.ts fails when the two differ; after editing rules.yml run
 *
 *   npx tsx scripts/kubernetes-prometheusrule.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { packagePath } from '../src/package-root.js';

export const RULES_PATH = packagePath('config/prometheus/rules.yml');
export const PROMETHEUS_RULE_PATH = packagePath('deploy/kubernetes/prometheusrule.yaml');

const HEADER = `# Generated from config/prometheus/rules.yml by scripts/kubernetes-prometheusrule.ts: edit
# rules.yml (its comments explain each rule), then run \`npx tsx scripts/kubernetes-prometheusrule.ts\`.
# The Prometheus Operator loads it when its ruleSelector matches these labels (kube-prometheus-stack:
# add \`release: <its release name>\`).
`;

/** The PrometheusRule manifest for the rule file `rulesText`. */
export function prometheusRuleYaml(rulesText: string): string {
  const rules = parse(rulesText) as { groups?: unknown };
  if (!Array.isArray(rules.groups)) throw new Error(`${RULES_PATH}: no \`groups\` list`);
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'podwarden' },
    spec: { groups: rules.groups },
  };
  return HEADER + stringify(manifest, { lineWidth: 0 });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(PROMETHEUS_RULE_PATH, prometheusRuleYaml(readFileSync(RULES_PATH, 'utf8')));
  console.log(`wrote ${PROMETHEUS_RULE_PATH}`);
}
