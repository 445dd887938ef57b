import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packagePath } from '../../src/package-root.js';
import { exposedMetricNames, exposedMetrics, metricNamesIn } from './support.js';

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: {
    list: Array<{
      name: string;
      type: string;
      datasource?: { type: string; uid: string };
      definition: string;
      query: string | { query: string };
    }>;
  };
}

const dashboard: Dashboard = JSON.parse(readFileSync(packagePath('config/grafana/dashboards/podwarden.json'), 'utf8'));
const datasources = parseYaml(
  readFileSync(packagePath('config/grafana/provisioning/datasources/prometheus.yml'), 'utf8'),
);
const providers = parseYaml(readFileSync(packagePath('config/grafana/provisioning/dashboards/podwarden.yml'), 'utf8'));
/** The dashboard variable every query names its datasource by. */
const DATASOURCE_VARIABLE = 'datasource';
const PANEL_TYPES = new Set(['stat', 'timeseries', 'heatmap', 'status-history', 'state-timeline', 'table', 'bargauge']);
const graphs = dashboard.panels.filter((panel) => panel.type !== 'row');

let known: Set<string>;
let byAccount: Set<string>;
beforeAll(async () => {
  known = await exposedMetricNames();
  const metrics = await exposedMetrics();
  byAccount = new Set(metrics.filter((metric) => metric.labelNames.includes('account')).map((metric) => metric.name));
});

describe('the provisioned Grafana dashboard', () => {
  it("is provisioned from files with the compose stack's Prometheus as the default datasource", () => {
    expect(datasources.apiVersion).toBe(1);
    expect(datasources.datasources).toHaveLength(1);
    // The dashboard's datasource variable starts on the default datasource: this one.
    expect(datasources.datasources[0]).toMatchObject({ type: 'prometheus', access: 'proxy', isDefault: true });
    expect(providers.providers[0]).toMatchObject({ type: 'file', options: { path: expect.stringMatching(/^\//) } });
    expect(dashboard).toMatchObject({ uid: 'podwarden-overview', title: 'podwarden' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
  });

  it('chooses its Prometheus by a datasource variable, starting on the default one, so it imports into any Grafana', () => {
    const [first, ...others] = dashboard.templating.list;
    // First, so the query variables below it resolve against the chosen datasource.
    expect(first).toMatchObject({ name: DATASOURCE_VARIABLE, type: 'datasource', query: 'prometheus' });
    // No `current`: Grafana selects the default datasource (the provisioned one in the compose stack).
    expect(first).not.toHaveProperty('current.value');
    expect(graphs.length).toBeGreaterThan(10);
    const chosen = { type: 'prometheus', uid: `\${${DATASOURCE_VARIABLE}}` };
    for (const panel of graphs) {
      expect(panel.datasource, panel.title).toEqual(chosen);
      for (const target of panel.targets ?? []) expect(target.datasource, panel.title).toEqual(chosen);
    }
    for (const variable of others) expect(variable.datasource, variable.name).toEqual(chosen);
  });

  it('names no datasource by a fixed uid anywhere (only the variable, or Grafana built-ins)', () => {
    const fixed: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (Array.isArray(node)) {
        for (const [index, item] of node.entries()) visit(item, `${path}[${index}]`);
      } else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'datasource') {
            const uid = typeof value === 'string' ? value : (value as { uid?: unknown } | null)?.uid;
            const builtIn = (value as { type?: unknown } | null)?.type === 'grafana';
            if (uid !== `\${${DATASOURCE_VARIABLE}}` && !builtIn)
              fixed.push(`${path}.datasource: ${JSON.stringify(value)}`);
          }
          visit(value, `${path}.${key}`);
        }
      }
    };
    visit(dashboard, 'dashboard');
    expect(fixed).toEqual([]);
    // Nor a provisioned uid anywhere in its text, say in a link or an expression.
    const text = readFileSync(packagePath('config/grafana/dashboards/podwarden.json'), 'utf8');
    for (const { uid } of datasources.datasources) if (uid) expect(text).not.toContain(uid);
  });

  it('has panels of known types, each with a title, a description and queries with distinct refIds', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of graphs) {
      expect(PANEL_TYPES.has(panel.type), `${panel.title}: ${panel.type}`).toBe(true);
      expect(panel.title.length).toBeGreaterThan(0);
      expect(panel.description?.endsWith('.'), panel.title).toBe(true);
      const targets = panel.targets ?? [];
      expect(targets.length, panel.title).toBeGreaterThan(0);
      for (const target of targets) expect(target.expr.trim().length, panel.title).toBeGreaterThan(0);
      expect(new Set(targets.map((target) => target.refId)).size, panel.title).toBe(targets.length);
    }
  });

  it('only queries metrics podwarden exposes', () => {
    const expressions = [
      ...graphs.flatMap((panel) => (panel.targets ?? []).map((target) => [panel.title, target.expr] as const)),
      ...dashboard.templating.list
        .filter((variable) => variable.type === 'query')
        .map((variable) => [variable.name, variable.definition] as const),
    ];
    let mentioned = 0;
    for (const [where, expression] of expressions) {
      for (const name of metricNamesIn(expression)) {
        mentioned += 1;
        expect(known.has(name), `${where}: ${name}`).toBe(true);
      }
    }
    expect(mentioned).toBeGreaterThan(15);
  });

  it('labels alerts, emails and budgets by account, and filters every account-labelled series by $account', () => {
    for (const name of [
      'podwarden_alerts_firing',
      'podwarden_emails_total',
      'podwarden_emails_queued',
      'podwarden_emails_oldest_queued_timestamp_seconds',
      'podwarden_budget_amount_dollars',
      'podwarden_budget_spend_dollars',
      'podwarden_budget_used_ratio',
      'podwarden_budget_burn_rate_dollars_per_hour',
      'podwarden_budget_runout_timestamp_seconds',
      'podwarden_budget_period_end_timestamp_seconds',
    ]) {
      expect(byAccount.has(name), name).toBe(true);
    }
    let checked = 0;
    for (const panel of graphs) {
      for (const target of panel.targets ?? []) {
        for (const match of target.expr.matchAll(/\b(podwarden_[a-z0-9_]+)\b(\{[^}]*\})?/g)) {
          const name = (match[1] as string).replace(/_(bucket|sum|count)$/, '');
          if (!byAccount.has(name)) continue;
          checked += 1;
          expect(match[2] ?? '', `${panel.title}: ${name}`).toMatch(/account=~"\$account(\|all)?"/);
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('lays the panels out on the 24-column grid without overlaps', () => {
    const cells = new Map<string, string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      expect(x + w, panel.title).toBeLessThanOrEqual(24);
      for (let row = y; row < y + h; row++) {
        for (let column = x; column < x + w; column++) {
          const cell = `${row}:${column}`;
          expect(cells.get(cell), `${panel.title} overlaps`).toBeUndefined();
          cells.set(cell, panel.title);
        }
      }
    }
  });

  it('shows what the issue asks for: spend against budget with the forecast, burn rate, cost per Pod, a GPU heatmap, idle countdowns, availability, collector health', () => {
    const titled = (pattern: RegExp) => graphs.filter((panel) => pattern.test(panel.title));
    expect(titled(/^Spend today \(UTC\)$/)).toHaveLength(1);
    expect(titled(/^Spend this month \(UTC\)$/)).toHaveLength(1);
    expect(titled(/^Burn rate/).length).toBeGreaterThan(0);
    const budget = titled(/^Budget spend against amount$/)[0]
      ?.targets?.map((t) => t.expr)
      .join(' ');
    expect(budget).toContain('podwarden_budget_spend_dollars');
    expect(budget).toContain('podwarden_budget_amount_dollars');
    expect(titled(/^Budgets used/)[0]?.targets?.[0]?.expr).toContain('podwarden_budget_used_ratio');
    const idle = titled(/^Idle candidates and countdowns$/)[0]
      ?.targets?.map((t) => t.expr)
      .join(' ');
    expect(idle).toContain('podwarden_pod_idle_seconds');
    expect(idle).toContain('podwarden_pod_planned_stop_seconds');
    expect(titled(/^Cost per Pod$/)[0]?.targets?.[0]?.expr).toContain('podwarden_pod_cost_dollars_per_hour');
    const heatmap = graphs.find((panel) => panel.type === 'heatmap');
    expect(heatmap?.targets?.[0]?.expr).toContain('podwarden_pod_gpu_utilization_ratio');
    expect(titled(/^Availability of watched GPU types$/)[0]?.type).toBe('state-timeline');
    expect(
      titled(/^Collector health$/)[0]
        ?.targets?.map((t) => t.expr)
        .join(' '),
    ).toContain('podwarden_collector_last_success_timestamp_seconds');
  });
});

describe('the by-team panel', () => {
  it("shows this month's spend by team from the team spend metric, filtered by $account", () => {
    const panels = graphs.filter((panel) => panel.title === 'Spend this month by team');
    expect(panels).toHaveLength(1);
    const expr = panels[0]?.targets?.map((target) => target.expr).join(' ') ?? '';
    expect(metricNamesIn(expr)).toEqual(['podwarden_team_spend_dollars']);
    expect(known.has('podwarden_team_spend_dollars')).toBe(true);
    expect(expr).toContain('sum by (team)');
    expect(expr).toMatch(/account=~"\$account"/);
  });
});

describe('the compose file', () => {
  const composePath = packagePath('config/docker-compose.yml');
  it('mounts the Prometheus and Grafana files where their configurations expect them', () => {
    const compose = parseYaml(readFileSync(composePath, 'utf8'));
    const volumes = (service: string): string[] => compose.services[service].volumes;
    expect(volumes('prometheus')).toContain('./prometheus:/etc/prometheus:ro');
    expect(volumes('grafana')).toContain('./grafana/provisioning:/etc/grafana/provisioning:ro');
    expect(volumes('grafana')).toContain(`./grafana/dashboards:${providers.providers[0].options.path}:ro`);
  });
});
