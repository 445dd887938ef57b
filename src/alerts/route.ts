import type { Config } from '../config/schema.js';
import { type AlertChannel, CHANNEL_CONFIGS } from '../config/sections/channels.js';
import { type AlertRouteConfig, isOwnerWord, labelRegexOf } from '../config/sections/routes.js';
import type { SilenceMatcher } from '../db/schema.js';
import { matchesAll } from './matchers.js';

/**
 * The channels a rule's alerts go to: its `alerts.route` entry, or else every configured channel
 * (each channel's config section says when it is), and the fallback channel (email) when none
 * is: its messages are kept in the outbox, unsent, and logged, so no announcement is lost.
 */
export function channelsOf(config: Config, rule: string): readonly AlertChannel[] {
  const routed = (config.alerts.route as Partial<Record<string, AlertChannel[]>>)[rule];
  if (routed !== undefined) return routed;
  const configured = CHANNEL_CONFIGS.filter((channel) => channel.configured(config));
  const chosen = configured.length > 0 ? configured : CHANNEL_CONFIGS.filter((channel) => 'fallback' in channel);
  return chosen.map((channel) => channel.name);
}

export function routesTo(config: Config, rule: string, channel: AlertChannel): boolean {
  return channelsOf(config, rule).includes(channel);
}

/** What routing reads of an alert: its rule, labels, and its default email recipients (the rule's, or `email.to`). */
export interface Routable {
  rule: string;
  labels: Readonly<Record<string, string>>;
  recipients: readonly string[];
}

/** Per channel an alert goes to, its recipients there (email addresses; Slack and webhook destination names). */
export type Reach = Readonly<Partial<Record<string, readonly string[]>>>;

/**
 * The recipients of an alert on `channel`, or undefined when it does not go there. The first
 * route of `alerts.routes` whose match holds and that reaches someone decides; otherwise the
 * default: the channels of `alerts.route`, by email to the alert's own recipients, and on every
 * other channel to no name in particular (`[]`: that channel's default destination).
 */
export function recipientsOn(config: Config, alert: Routable, channel: string): readonly string[] | undefined {
  const reach = routedReach(config, alert);
  if (reach !== undefined) return reach[channel];
  if (!channelsOf(config, alert.rule).includes(channel as AlertChannel)) return undefined;
  return channel === 'email' ? alert.recipients : [];
}

/** What the first route that takes the alert gives, or undefined when none does (the default applies). */
export function routedReach(config: Config, alert: Routable): Reach | undefined {
  for (const route of config.alerts.routes) {
    if (!matchesAll(matchersOf(route), alert.labels)) continue;
    const reach = reachOf(route, alert.labels, config.owners.contacts);
    if (reach !== undefined) return reach;
  }
  return undefined;
}

/**
 * A route's channels and recipients for one alert: `owner`/`team` become that label's contact on
 * the channel (none when the label is absent or its contact has none there). Undefined when the
 * route reaches nobody on any channel, so the alert falls to the next route or the default.
 */
function reachOf(
  route: AlertRouteConfig,
  labels: Readonly<Record<string, string>>,
  contacts: Config['owners']['contacts'],
): Reach | undefined {
  const reach: Record<string, string[]> = {};
  for (const [channel, entries] of Object.entries(route.to)) {
    if (entries === undefined || entries === false) continue;
    if (entries === true) {
      reach[channel] = [];
      continue;
    }
    const names = entries.flatMap((entry) => {
      if (!isOwnerWord(entry)) return [entry];
      const who = labels[entry];
      return who === undefined ? [] : (contacts[who]?.[channel as 'email' | 'slack' | 'webhook'] ?? []);
    });
    if (names.length > 0) reach[channel] = [...new Set(names)].sort();
  }
  return Object.keys(reach).length > 0 ? reach : undefined;
}

// Config objects are never changed once parsed: a route's matchers are built once.
const matchersByRoute = new WeakMap<AlertRouteConfig, SilenceMatcher[]>();

/** A route's match as Alertmanager-style matchers: `=` for a value, `=~` (whole value) for `/regex/`. */
function matchersOf(route: AlertRouteConfig): SilenceMatcher[] {
  let matchers = matchersByRoute.get(route);
  if (matchers === undefined) {
    matchers = Object.entries(route.match).map(([name, value]) => {
      const regex = labelRegexOf(value);
      return regex === undefined ? { name, op: '=' as const, value } : { name, op: '=~' as const, value: regex };
    });
    matchersByRoute.set(route, matchers);
  }
  return matchers;
}
