import type { BudgetFigure } from '../config/sections/budgets.js';
import { formatUsd } from '../messages/format.js';
import type { BudgetStatus, CostDriver } from './budget-status.js';
import type { Finding } from './finding.js';
import type { BudgetDetails } from './finding-details.js';

const KIND_NAMES: Record<CostDriver['kind'], string> = {
  account: 'account',
  pods: 'Pod',
  serverless: 'endpoint',
  endpoints: 'Public Endpoints',
  network_volumes: 'network volume',
  clusters: 'cluster',
};

const FIGURE_WORDS: Record<BudgetFigure, string> = {
  actual: 'billed spend',
  live: 'live spend',
  forecast: 'forecast',
};

function severityOf(threshold: number): Finding['severity'] {
  if (threshold >= 100) return 'critical';
  return threshold >= 80 ? 'warning' : 'info';
}

export function describeDriver(driver: CostDriver): string {
  const what = driver.kind === 'endpoints' ? KIND_NAMES.endpoints : `${KIND_NAMES[driver.kind]} ${driver.name}`;
  const id = driver.kind === 'endpoints' || driver.name === driver.resourceId ? '' : ` (${driver.resourceId})`;
  return `${what}${id}: ${formatUsd(driver.amount)}`;
}

/**
 * One finding per figure the budget alerts on and threshold that figure has reached. Each says
 * the figure, the threshold, when the budget runs out at the current rate and the largest drivers.
 */
export function budgetFindings(status: BudgetStatus): Finding[] {
  const findings: Finding[] = [];
  for (const figure of status.figures) {
    const value = status[figure];
    if (value === null) continue;
    for (const threshold of status.thresholds) {
      if (value < (status.amount * threshold) / 100) continue;
      findings.push(finding(status, figure, value, threshold));
    }
  }
  return findings;
}

function finding(status: BudgetStatus, figure: BudgetFigure, value: number, threshold: number): Finding {
  const verb = figure === 'forecast' ? `for ${status.period.label} crosses` : 'crossed';
  return {
    rule: 'budget',
    key: `budget:${status.account}:${status.budget}:${figure}:${threshold}`,
    account: status.account,
    severity: severityOf(threshold),
    summary:
      `Budget ${status.budget}: ${FIGURE_WORDS[figure]} ${formatUsd(value)} ${verb} ` +
      `${threshold}% of ${formatUsd(status.amount)}` +
      (figure === 'forecast' ? '' : ` (${status.period.label})`),
    labels: {
      rule: 'budget',
      account: status.account,
      budget: status.budget,
      figure,
      threshold: String(threshold),
      scope: status.scope,
    },
    details: details(status, figure, value, threshold),
    ...(status.recipients ? { recipients: status.recipients } : {}),
  };
}

/** The figures a budget message needs, raw: the message formats them in the budget's zone. */
function details(status: BudgetStatus, figure: BudgetFigure, value: number, threshold: number): BudgetDetails {
  const { period } = status;
  return {
    kind: 'budget',
    budget: status.budget,
    scope: status.scope,
    figure,
    threshold,
    value: round(value),
    amount: status.amount,
    timeZone: status.timeZone,
    period: { kind: status.periodKind, label: period.label, startMs: period.startMs, endMs: period.endMs },
    actual: round(status.actual),
    live: round(status.live),
    currentPerHour: round(status.currentPerHour, 4),
    trailing:
      status.forecast === null || status.burnPerHour === null || status.burnWindowMs === null
        ? null
        : {
            perHour: round(status.burnPerHour, 4),
            windowMs: status.burnWindowMs,
            forecast: round(status.forecast),
          },
    forecastAtCurrentRate: round(status.forecastAtCurrentRate),
    runsOutAt: status.runsOutAt,
    evaluatedAt: status.evaluatedAt,
    drivers: status.drivers.map((d) => ({
      kind: d.kind,
      resourceId: d.resourceId,
      name: d.name,
      amount: round(d.amount),
    })),
  };
}

function round(amount: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(amount * scale) / scale;
}
