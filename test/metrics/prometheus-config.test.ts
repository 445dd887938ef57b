import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packagePath } from '../../src/package-root.js';
import { exposedMetricNames, hasBinary, metricNamesIn } from './support.js';

const dir = packagePath('config/prometheus');
const rules: { groups: Array<{ rules: Array<{ alert: string; expr: string }> }> } = parseYaml(
  readFileSync(packagePath('config/prometheus/rules.yml'), 'utf8'),
);
const tests: { tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }> } = parseYaml(
  readFileSync(packagePath('config/prometheus/rules.test.yml'), 'utf8'),
);
const alerts = rules.groups.flatMap((group) => group.rules);

function promtool(...args: string[]) {
  const result = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

let known: Set<string>;
beforeAll(async () => {
  known = await exposedMetricNames();
});

describe('the Prometheus configuration', () => {
  it('alerts when podwarden is down or stuck (no Pod poll, an outbox that only grows, a database that cannot be written), a collector is stale, a budget forecast is over, stops are frozen, idle detection is blind most of an hour, or a configuration reload failed', () => {
    expect(alerts.map((rule) => rule.alert).sort()).toEqual([
      'PodwardenActionsFrozen',
      'PodwardenBudgetForecastOver',
      'PodwardenCollectorStale',
      'PodwardenConfigReloadFailed',
      'PodwardenDatabaseNotWritable',
      'PodwardenDown',
      'PodwardenIdleBlind',
      'PodwardenOutboxGrowing',
      'PodwardenPodPollStalled',
    ]);
  });

  it('has rules on metrics podwarden exposes only', () => {
    for (const rule of alerts) {
      for (const name of metricNamesIn(rule.expr)) expect(known.has(name), `${rule.alert}: ${name}`).toBe(true);
    }
  });

  it('tests every alert both firing and quiet', () => {
    const cases = tests.tests.flatMap((test) => test.alert_rule_test);
    for (const rule of alerts) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${rule.alert} fires`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${rule.alert} stays quiet`,
      ).toBe(true);
    }
  });

  it.skipIf(!hasBinary('promtool'))('passes promtool check config and promtool test rules', () => {
    const config = promtool('check', 'config', 'prometheus.yml');
    expect(config.output).toContain('SUCCESS: prometheus.yml is valid prometheus config file syntax');
    expect(config.status).toBe(0);
    const tested = promtool('test', 'rules', 'rules.test.yml');
    expect(tested.output).toContain('SUCCESS');
    expect(tested.status).toBe(0);
  });
});
