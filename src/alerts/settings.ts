import type { Config } from '../config/schema.js';
import { ALERT_RULES } from '../config/sections/alerts.js';
import { ALERT_CHANNELS, type AlertChannel } from '../config/sections/channels.js';
import type { RuleName } from '../rules/finding.js';
import { routesTo } from './route.js';

/** The alert settings the pipeline reads, per rule where the configuration is per rule. */
export interface AlertSettings {
  groupWaitMs: number;
  groupIntervalMs: number;
  groupBy: readonly string[];
  inhibit: boolean;
  defaultRecipients: readonly string[];
  forMs(rule: string): number;
  /** How long a condition must be judged absent before its alert resolves. */
  resolveAfterMs(rule: string): number;
  /** `count` fires within `windowMs` make a key flap; it settles after `windowMs` without change. */
  flapping: { count: number; windowMs: number };
  /** Infinity for rules that never repeat. */
  repeatMs(rule: string): number;
  sendResolved(rule: string): boolean;
  /** Whether the rule's alerts go to `channel` (`alerts.route`). */
  routedTo(rule: string, channel: string): boolean;
  /** Whether the rule's alerts go out by email (`alerts.route`): the digest is an email. */
  emailed(rule: string): boolean;
  /**
   * Equal for settings that plan alike (every value above, per rule and channel), different
   * otherwise: a kept quiet plan holds only for the settings it was planned with (quiet.ts).
   */
  fingerprint: string;
}

const settingsOf = new WeakMap<Config, AlertSettings>();

/** The settings of a configuration, built once per configuration object (the tick asks every minute). */
export function alertSettings(config: Config): AlertSettings {
  let settings = settingsOf.get(config);
  if (settings === undefined) {
    settings = buildSettings(config);
    settingsOf.set(config, settings);
  }
  return settings;
}

function buildSettings(config: Config): AlertSettings {
  const { alerts, email } = config;
  const durations = alerts.for as Partial<Record<`${RuleName}Ms`, number>>;
  const settings: Omit<AlertSettings, 'fingerprint'> = {
    groupWaitMs: alerts.groupWaitMs,
    groupIntervalMs: alerts.groupIntervalMs,
    groupBy: alerts.groupBy,
    inhibit: alerts.inhibit,
    defaultRecipients: email.to,
    forMs: (rule) => durations[`${rule as RuleName}Ms`] ?? 0,
    resolveAfterMs: (rule) => (alerts.resolveAfter as Partial<Record<string, number>>)[`${rule}Ms`] ?? 0,
    flapping: { count: alerts.flapping.count, windowMs: alerts.flapping.windowMs },
    repeatMs: (rule) =>
      (alerts.noRepeat as readonly string[]).includes(rule) ? Number.POSITIVE_INFINITY : alerts.repeatIntervalMs,
    sendResolved: (rule) => (alerts.sendResolved as readonly string[]).includes(rule),
    routedTo: (rule, channel) => routesTo(config, rule, channel as AlertChannel),
    emailed: (rule) => routesTo(config, rule, 'email'),
  };
  return { ...settings, fingerprint: fingerprintOf(settings) };
}

function fingerprintOf(settings: Omit<AlertSettings, 'fingerprint'>): string {
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
  return JSON.stringify([groupWaitMs, groupIntervalMs, groupBy, inhibit, defaultRecipients, flapping, perRule]);
}
