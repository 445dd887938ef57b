import { formatUsd } from '../format.js';
import type { BudgetStatus } from './budget-status.js';
import type { Finding } from './finding.js';
import type { BudgetAlertFigure, BudgetDetails, SpentFigure } from './finding-details.js';

/** A budget alert's severity (and its mail's tone) by the threshold it crossed. */
export function severityOf(threshold: number): Finding['severity'] {
  if (threshold >= 100) return 'critical';
  return threshold >= 80 ? 'warning' : 'info';
}

/**
 * One finding per threshold that spent money has reached, and one per threshold the forecast has
 * reached. Billed (`actual`) and live spend are two readings of one fact, money spent in the
 * period, so they make one finding per threshold: it fires when the first of the configured ones
 * reaches it and carries both, and the other reaching it later changes no alert (no second mail).
 * The forecast, where spend is heading, stays its own finding. Each says the figures, the
 * threshold, when the budget runs out at the current rate and the largest drivers.
 */
export function budgetFindings(status: BudgetStatus): Finding[] {
  const findings: Finding[] = [];
  const spent = status.figures.filter((figure): figure is SpentFigure => figure !== 'forecast');
  for (const threshold of status.thresholds) {
    const crossed = spent.filter((figure) => status[figure] >= limitOf(status, threshold));
    if (crossed.length > 0) findings.push(spentFinding(status, crossed, threshold));
  }
  const { forecast } = status;
  if (status.figures.includes('forecast') && forecast !== null) {
    for (const threshold of status.thresholds) {
      if (forecast >= limitOf(status, threshold)) findings.push(forecastFinding(status, forecast, threshold));
    }
  }
  return findings;
}

const limitOf = (status: BudgetStatus, threshold: number) => (status.amount * threshold) / 100;

function spentFinding(status: BudgetStatus, crossed: SpentFigure[], threshold: number): Finding {
  // Live spend includes billed spend, so the highest figure that crossed is the live one when it did.
  const value = Math.max(...crossed.map((figure) => status[figure]));
  return {
    ...common(status, 'spent', threshold),
    summary:
      `Budget ${status.budget}: spend ${formatUsd(status.live)} (billed ${formatUsd(status.actual)}) crossed ` +
      `${threshold}% of ${formatUsd(status.amount)} (${status.period.label})`,
    details: { ...details(status, 'spent', value, threshold), crossed },
  };
}

function forecastFinding(status: BudgetStatus, forecast: number, threshold: number): Finding {
  return {
    ...common(status, 'forecast', threshold),
    summary: `Budget ${status.budget}: forecast ${formatUsd(forecast)} for ${status.period.label} crosses ${threshold}% of ${formatUsd(status.amount)}`,
    details: details(status, 'forecast', forecast, threshold),
  };
}

function common(
  status: BudgetStatus,
  figure: BudgetAlertFigure,
  threshold: number,
): Omit<Finding, 'summary' | 'details'> {
  return {
    rule: 'budget',
    key: `budget:${status.account}:${status.budget}:${figure}:${threshold}`,
    account: status.account,
    severity: severityOf(threshold),
    labels: {
      rule: 'budget',
      account: status.account,
      budget: status.budget,
      figure,
      threshold: String(threshold),
      scope: status.scope,
      // Routes send a team's budget to its lead by these, as they send a Pod's alerts to its owner.
      ...(status.team !== undefined ? { team: status.team } : {}),
      ...(status.owner !== undefined ? { owner: status.owner } : {}),
    },
    ...(status.recipients ? { recipients: status.recipients } : {}),
  };
}

/** The figures a budget message needs, raw: the message formats them in the budget's zone. */
function details(status: BudgetStatus, figure: BudgetAlertFigure, value: number, threshold: number): BudgetDetails {
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
