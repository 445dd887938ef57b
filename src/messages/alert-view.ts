import { detailsOf } from '../rules/finding-details.js';
import { budgetView } from './budget.js';
import { capacityView } from './capacity.js';
import { BARE_COMMAND_LINE } from './commands.js';
import { healthView } from './health.js';
import { blastRadiusView, clusterView, idleView, notStoppedView } from './idle.js';
import type { AlertData, AlertView, RenderContext, Tone } from './view.js';
import { wasteView } from './waste.js';

/**
 * The view of one alert, by the kind of its details. Details written by an older podwarden (or a
 * kind this version does not know) fall back to the rule's one-line summary: never a field dump.
 */
export function alertView(alert: AlertData, ctx: RenderContext): AlertView {
  const d = alert.details;
  const budget = detailsOf(d, 'budget');
  if (budget) return budgetView(alert, budget, ctx);
  const idle = detailsOf(d, 'idle');
  if (idle) return idleView(alert, idle, ctx);
  const notStopped = detailsOf(d, 'idle-not-stopped');
  if (notStopped) return notStoppedView(alert, notStopped, ctx);
  const blast = detailsOf(d, 'idle-blast-radius');
  if (blast) return blastRadiusView(alert, blast, ctx);
  const cluster = detailsOf(d, 'idle-cluster');
  if (cluster) return clusterView(alert, cluster, ctx);
  const capacity = detailsOf(d, 'capacity');
  if (capacity) return capacityView(alert, capacity, ctx);
  const waste = detailsOf(d, 'waste');
  if (waste) return wasteView(alert, waste, ctx);
  const health = detailsOf(d, 'health');
  if (health) return healthView(alert, health, ctx);
  return {
    headline: alert.summary,
    title: alert.summary,
    tone: toneOfSeverity(alert.severity),
    lead: [alert.summary],
    blocks: [],
  };
}

/**
 * What a stored alert is about, without figures, as its mails title it ("Pod notebook idle",
 * "Budget team-day past 100%"): for the pages that confirm a silence. A firing alert has fired;
 * `activeSince` stands in for an old row's missing `firedAt`.
 */
export function alertTitle(
  alert: Omit<AlertData, 'firedAt'> & { firedAt: number | null; activeSince: number },
  now: number,
  timeZone: string,
): string {
  return alertView(
    { ...alert, firedAt: alert.firedAt ?? alert.activeSince },
    { now, timeZone, commandLine: BARE_COMMAND_LINE },
  ).title;
}

export function toneOfSeverity(severity: string): Tone {
  return severity === 'critical' || severity === 'warning' ? severity : 'info';
}
