import type { Config } from '../config/schema.js';
import { ALERT_RULES } from '../config/sections/alerts.js';
import { ALERT_CHANNELS, type AlertChannel } from '../config/sections/channels.js';
import type { RuleName } from '../rules/finding.js';
import { type Routable, recipientsOn, routesTo } from './route.js';

/**
 * The alert settings the pipeline reads, per rule where the configuration is per rule.
 * `fingerprint` is equal for settings that plan alike (every value, per rule and channel) and
 * different otherwise: a kept quiet plan holds only for the settings it was planned with (quiet.ts).
 */
export type AlertSettings = ReturnType<typeof settingsFrom> & { fingerprint: string };

const settingsOf = new WeakMap<Config, AlertSettings>();

/** The settings of a configuration, built once per configuration object (the tick asks every minute). */
export function alertSettings(config: Config): AlertSettings {
  let settings = settingsOf.get(config);
  if (settings === undefined) {
    const built = settingsFrom(config);
    settings = { ...built, fingerprint: fingerprintOf(built) };
    settingsOf.set(config, settings);
  }
  return settings;
}

function settingsFrom(config: Config) {
  const { alerts, email } = config;
  const durations = alerts.for as Partial<Record<`${RuleName}Ms`, number>>;
  return {
    groupWaitMs: alerts.groupWaitMs,
    groupIntervalMs: alerts.groupIntervalMs,
    groupBy: alerts.groupBy as readonly string[],
    inhibit: alerts.inhibit,
    defaultRecipients: email.to as readonly string[],
    forMs: (rule: string): number => durations[`${rule as RuleName}Ms`] ?? 0,
    /** How long a condition must be judged absent before its alert resolves. */
    resolveAfterMs: (rule: string): number =>
      (alerts.resolveAfter as Partial<Record<string, number>>)[`${rule}Ms`] ?? 0,
    /** `count` fires within `windowMs` make a key flap; it settles after `windowMs` without change. */
    flapping: { count: alerts.flapping.count, windowMs: alerts.flapping.windowMs },
    /** Infinity for rules that never repeat. */
    repeatMs: (rule: string): number =>
      (alerts.noRepeat as readonly string[]).includes(rule) ? Number.POSITIVE_INFINITY : alerts.repeatIntervalMs,
    sendResolved: (rule: string): boolean => (alerts.sendResolved as readonly string[]).includes(rule),
    /** Whether the rule's alerts go to `channel` (`alerts.route`). */
    routedTo: (rule: string, channel: string): boolean => routesTo(config, rule, channel as AlertChannel),
    /** An alert's recipients on `channel`, or undefined when it does not go there (route.ts). */
    recipientsOn: (alert: Routable, channel: string): readonly string[] | undefined =>
      recipientsOn(config, alert, channel),
    /** The configured routes and contacts, as the fingerprint reads them (none: left out of it). */
    routes: config.alerts.routes.length === 0 ? undefined : [config.alerts.routes, config.owners.contacts],
    /** Whether the rule's alerts go out by email (`alerts.route`): the digest is an email. */
    emailed: (rule: string): boolean => routesTo(config, rule, 'email'),
  };
}

function fingerprintOf(settings: ReturnType<typeof settingsFrom>): string {
  const { groupWaitMs, groupIntervalMs, groupBy, inhibit, defaultRecipients, flapping } = settings;
  const perRule = ALERT_RULES.map((rule) => [
    settings.forMs(rule),
    settings.resolveAfterMs(rule),
    // JSON has no Infinity: a rule that never repeats reads as null.
    settings.repeatMs(rule),
    settings.sendResolved(rule),
    settings.emailed(rule),
    ALERT_CHANNELS.map((channel) => settings.routedTo(rule, channel)),
  ]);
  const fields = [groupWaitMs, groupIntervalMs, groupBy, inhibit, defaultRecipients, flapping, perRule];
  // Without routes, the fingerprint is what it was before routes existed: kept quiet plans stay valid.
  return JSON.stringify(settings.routes === undefined ? fields : [...fields, settings.routes]);
}
