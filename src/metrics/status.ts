import { idleCandidates } from '../actions/idle-status.js';
import { readTeamSpend, showsTeamSpend } from '../alerts/team-spend.js';
import { toIso } from '../clock.js';
import type { Config } from '../config/schema.js';
import { firingAlerts } from '../db/alerts.js';
import { recentReceipts } from '../db/receipts.js';
import { heldDecisions } from '../links/decisions.js';
import { version } from '../package-root.js';
import { budgetStatus } from '../tick/budget-status.js';
import { collectorHealth } from './collector-health.js';
import { checkReadiness } from './readiness.js';
import type { MetricsSource } from './source.js';

/**
 * What /api/status and the status page both show, read from the database and memory only, never
 * the API; times stay numbers here, each reader formats them.
 */
export async function readStatus(source: MetricsSource, config: Config, now: number, receipts: number) {
  const readiness = await checkReadiness(source, config, now);
  return {
    now,
    ready: readiness.ready,
    reasons: readiness.reasons,
    collectors: await collectorHealth(source, config, now),
    budgets: await budgetStatus(source.db, config, now),
    idle: await idleCandidates(source.db, config, now),
    receipts: await recentReceipts(source.db, receipts),
    alerts: await firingAlerts(source.db),
    ...(showsTeamSpend(config) ? { teamSpend: await teamSpendOf(source, config, now) } : {}),
  };
}

/** Each account's spend by team this month (only with `owners` teams). */
async function teamSpendOf(source: MetricsSource, config: Config, now: number) {
  const reports = [];
  for (const { name } of config.accounts) reports.push(await readTeamSpend(source.db, config, name, now));
  return reports;
}

type Status = Awaited<ReturnType<typeof readStatus>>;

/** How many of the latest idle-ladder receipts the status shows (`podwarden why POD` has the rest). */
const RECENT_RECEIPTS = 20;

const isoOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : toIso(ms));

/** Collectors' health with its times as ISO text. */
function collectors(status: Status) {
  return status.collectors.map(({ lastRun: last, intervalMs, lastSuccessAt, ...health }) => ({
    ...health,
    intervalSeconds: intervalMs / 1000,
    lastSuccessAt: isoOrNull(lastSuccessAt),
    lastRun: last
      ? {
          startedAt: toIso(last.startedAt),
          endedAt: isoOrNull(last.endedAt),
          // NULL while the run is still going.
          outcome: last.outcome ?? 'running',
          rows: last.rows,
          error: last.error,
          // What an ok run set aside, e.g. Pods the schema rejected (treated as unknown).
          detail: last.detail,
        }
      : null,
  }));
}

function budgets(status: Status) {
  return status.budgets.map((status) => ({
    budget: status.budget,
    account: status.account,
    scope: status.scope,
    period: { label: status.period.label, start: toIso(status.period.startMs), end: toIso(status.period.endMs) },
    amount: status.amount,
    actual: status.actual,
    live: status.live,
    forecast: status.forecast,
    burnPerHour: status.burnPerHour,
    currentPerHour: status.currentPerHour,
    runsOutAt: isoOrNull(status.runsOutAt),
    drivers: status.drivers,
  }));
}

function idle({ idle, now }: Status) {
  return idle.map((candidate) => ({
    account: candidate.account,
    podId: candidate.podId,
    podName: candidate.podName,
    rule: candidate.rule,
    phase: candidate.phase,
    idleSince: toIso(candidate.idleSince),
    idleSeconds: Math.max(0, now - candidate.idleSince) / 1000,
    plannedStopAt: isoOrNull(candidate.plannedStopAt),
    secondsToStop: candidate.msToStop === null ? null : candidate.msToStop / 1000,
    dryRun: candidate.dryRun,
    costPerHr: candidate.costPerHr,
    savingPerHr: candidate.savingPerHr,
  }));
}

/** The latest decisions of the idle ladder, without the sample-by-sample evidence. */
function receipts(status: Status) {
  return status.receipts.map(({ evidence: _evidence, idempotencyKey: _key, ...receipt }) => ({
    ...receipt,
    decidedAt: toIso(receipt.decidedAt),
    episodeStartedAt: toIso(receipt.episodeStartedAt),
    plannedStopAt: isoOrNull(receipt.plannedStopAt),
  }));
}

function alerts(status: Status) {
  return status.alerts.map((alert) => ({
    key: alert.key,
    rule: alert.rule,
    account: alert.account,
    severity: alert.severity,
    summary: alert.summary,
    labels: alert.labels,
    activeSince: toIso(alert.activeSince),
    firedAt: isoOrNull(alert.firedAt),
  }));
}

function teamSpend(reports: NonNullable<Status['teamSpend']>) {
  return reports.map(({ account, period, teams }) => ({
    account,
    period: { label: period.label, start: toIso(period.startMs), end: toIso(period.endMs) },
    // Null until billing was collected for the account.
    teams,
  }));
}

/** `/api/status`: what the daemon knows now, as JSON for people and scripts. */
export async function buildStatus(source: MetricsSource, config: Config, now: number) {
  const status = await readStatus(source, config, now, RECENT_RECEIPTS);
  return {
    now: toIso(now),
    version,
    ready: status.ready,
    reasons: status.reasons,
    collectors: collectors(status),
    budgets: budgets(status),
    idle: idle(status),
    receipts: receipts(status),
    alerts: alerts(status),
    ...(status.teamSpend ? { teamSpend: teamSpend(status.teamSpend) } : {}),
    // Snoozes and silences that hold now, with where they were made (command, email link, status page).
    held: (await heldDecisions(source.db, now)).map((held) => ({
      ...held,
      until: toIso(held.until),
      createdAt: toIso(held.createdAt),
    })),
    rateLimits: source.rateLimits().map(({ account, windows }) => ({
      account,
      windows: windows.map((window) => ({ ...window, resetsAt: toIso(window.resetsAt) })),
    })),
  };
}
