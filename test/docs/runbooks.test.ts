import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { alertName } from '../../src/channels/alertmanager-payload.js';
import { ALERT_RULES } from '../../src/config/sections/alerts.js';
import { packagePath } from '../../src/package-root.js';

/** Where the runbooks live, as a path in the repository: every `runbook_url` starts with it. */
const RUNBOOKS = 'docs/runbooks.md';
const runbooks = readFileSync(packagePath(RUNBOOKS), 'utf8');
const rules: { groups: Array<{ rules: Array<{ alert: string; annotations?: Record<string, string> }> }> } = parseYaml(
  readFileSync(packagePath('config/prometheus/rules.yml'), 'utf8'),
);
const prometheusRules = rules.groups.flatMap((group) => group.rules);

/**
 * The anchors GitHub (and most Markdown renderers after it) gives a document's headings: lower
 * case, punctuation other than `-` and `_` dropped, spaces as `-`, a repeat suffixed `-1`, `-2`.
 * Headings inside code fences are not headings.
 */
function githubAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] as string)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

const anchors = githubAnchors(runbooks);

function anchorOf(url: string | undefined, base: string): string | undefined {
  if (url === undefined || !url.startsWith(`${base}#`)) return undefined;
  return url.slice(base.length + 1);
}

describe('docs/runbooks.md', () => {
  it('computes anchors as GitHub does', () => {
    expect([
      ...githubAnchors('# Idle: stop warning\n## Waste: `endpoint-idle`\n```\n# not one\n```\n# Idle: stop warning\n'),
    ]).toEqual(['idle-stop-warning', 'waste-endpoint-idle', 'idle-stop-warning-1']);
  });

  it('gives every shipped Prometheus rule a runbook_url pointing at its own section', () => {
    expect(prometheusRules.length).toBeGreaterThan(0);
    for (const rule of prometheusRules) {
      const url = rule.annotations?.runbook_url;
      const anchor = anchorOf(url, RUNBOOKS);
      expect(anchor, `${rule.alert}: runbook_url ${url}`).toBeDefined();
      expect(anchors.has(anchor as string), `${rule.alert}: no heading for #${anchor} in ${RUNBOOKS}`).toBe(true);
      expect(anchor, rule.alert).toBe(rule.alert.toLowerCase());
    }
  });

  it("has a section for each of podwarden's own alerts, by the name Alertmanager receives it under", () => {
    for (const rule of ALERT_RULES) expect(anchors, rule).toContain(alertName(rule).toLowerCase());
  });

  it('covers each kind of podwarden notice: idle stages, waste checks, the health check, capacity events, flapping', () => {
    for (const anchor of [
      'idle-a-pod-is-idle',
      'idle-held-idle',
      'idle-stop-warning',
      'idle-the-stop',
      'idle-not-stopped-gpu-scarce',
      'idle-stop-failed',
      'idle-blast-radius',
      'idle-a-whole-cluster-idle',
      'enforce-stop-warning',
      'enforce-the-stop',
      'enforce-stop-failed',
      'enforce-blast-radius',
      'enforce-bad-env-deadline',
      'waste-endpoint-idle',
      'waste-volume-unmounted',
      'waste-stopped-pod-volume',
      'waste-stuck-starting',
      'health-idle-stops-frozen',
      'capacity-rise-fall-price',
      'flapping',
    ]) {
      expect(anchors, anchor).toContain(anchor);
    }
  });

  it("points the example configuration's runbookUrls at the same sections", () => {
    const example = readFileSync(packagePath('config/podwarden.example.yaml'), 'utf8');
    const urls = [
      ...example.matchAll(/^\s*#\s*(budget|idle|enforce|capacity|waste|health): (\S+\/docs\/runbooks\.md#\S+)$/gm),
    ];
    expect(urls.map((match) => match[1]).sort()).toEqual([...ALERT_RULES].sort());
    for (const [, rule, url] of urls) {
      const anchor = (url as string).split('#')[1];
      expect(anchor, rule).toBe(alertName(rule as string).toLowerCase());
    }
  });
});
