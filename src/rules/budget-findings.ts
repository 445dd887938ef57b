import { toIso } from '../clock.js';
import type { BudgetFigure } from '../config/sections/budgets.js';
import type { BudgetStatus, CostDriver } from './budget.js';
import type { Finding } from './finding.js';
import { formatUsd } from './money.js';

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
  const runOut =
    status.live >= status.amount
      ? 'already exceeded'
      : status.runsOutAt === null
        ? 'not at the current rate'
        : `${toIso(status.runsOutAt)} at the current rate (${formatUsd(status.currentPerHour)}/h)`;
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
    details: {
      figure,
      value: round(value),
      threshold,
      amount: status.amount,
      period: status.period.label,
      periodStart: toIso(status.period.startMs),
      periodEnd: toIso(status.period.endMs),
      actual: round(status.actual),
      live: round(status.live),
      forecast: status.forecast === null ? null : round(status.forecast),
      currentPerHour: round(status.currentPerHour),
      burnPerHour: status.burnPerHour === null ? null : round(status.burnPerHour),
      runsOut: runOut,
      drivers: status.drivers.map(describeDriver),
    },
    ...(status.recipients ? { recipients: status.recipients } : {}),
  };
}

function round(amount: number): number {
  return Math.round(amount * 100) / 100;
}
