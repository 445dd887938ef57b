import type { FindingDetails } from '../rules/finding-details.js';
import { budgetView } from './budget.js';
import { capacityView } from './capacity.js';
import { BARE_COMMAND_LINE } from './commands.js';
import { enforceView } from './enforce.js';
import { healthView } from './health.js';
import { blastRadiusView, clusterView, idleView, notStoppedView } from './idle.js';
import type { AlertData, AlertView, RenderContext, Tone } from './view.js';
import { wasteView } from './waste.js';

type ViewOf<D> = (alert: AlertData, details: D, ctx: RenderContext) => AlertView;

const VIEWS: { [K in FindingDetails['kind']]: ViewOf<Extract<FindingDetails, { kind: K }>> } = {
  budget: budgetView,
  idle: idleView,
  'idle-not-stopped': notStoppedView,
  'idle-blast-radius': blastRadiusView,
  'idle-cluster': clusterView,
  enforce: enforceView,
  capacity: capacityView,
  waste: wasteView,
  health: healthView,
};

/**
 * The view of one alert, by the kind of its details. Details written by an older podwarden (or a
 * kind this version does not know) fall back to the rule's one-line summary: never a field dump.
 */
export function alertView(alert: AlertData, ctx: RenderContext): AlertView {
  const { kind } = alert.details;
  if (typeof kind === 'string' && Object.hasOwn(VIEWS, kind)) {
    const view = VIEWS[kind as FindingDetails['kind']] as ViewOf<FindingDetails>;
    return view(alert, alert.details as FindingDetails, ctx);
  }
  const { summary } = alert;
  return { headline: summary, title: summary, tone: toneOfSeverity(alert.severity), lead: [summary], blocks: [] };
}

type StoredAlert = Omit<AlertData, 'firedAt'> & { firedAt: number | null; activeSince: number };

/** A stored alert as messages read it: a firing alert has fired; `activeSince` stands in for an old row's `firedAt`. */
export function firedAlert<A extends StoredAlert>(alert: A): A & AlertData {
  return { ...alert, firedAt: alert.firedAt ?? alert.activeSince };
}

/**
 * What a stored alert is about, without figures, as its mails title it ("Pod notebook idle",
 * "Budget team-day past 100%"): for the pages that confirm a silence.
 */
export function alertTitle(alert: StoredAlert, now: number, timeZone: string): string {
  return alertView(firedAlert(alert), { now, timeZone, commandLine: BARE_COMMAND_LINE }).title;
}

export function toneOfSeverity(severity: string): Tone {
  return severity === 'critical' || severity === 'warning' ? severity : 'info';
}
