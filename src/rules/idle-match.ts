import { DAY_MS } from '../buckets.js';
import { type IdleRuleConfig, minuteOfDay } from '../config/sections/idle.js';

/** The env variable that opts a Pod out of every idle action, whatever the configuration says. */
export const IGNORE_ENV = 'PODWARDEN_IGNORE';

/** What rule selection and exclusions look at on a Pod. */
export interface PodIdentity {
  podId: string;
  name: string;
  env: Record<string, string>;
}

const patterns = new Map<string, RegExp>();

/** A name pattern: `*` any run of characters, `?` one character, anything else literal. */
export function namePattern(glob: string): RegExp {
  let compiled = patterns.get(glob);
  if (!compiled) {
    const body = glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.');
    compiled = new RegExp(`^${body}$`);
    patterns.set(glob, compiled);
  }
  return compiled;
}

/** Whether a selector names the Pod, by id or by a name pattern (the enforcement controls select with it too). */
export function selects(
  selector: { podIds: readonly string[]; names: readonly string[] },
  pod: PodIdentity,
): 'id' | 'name' | undefined {
  if (selector.podIds.includes(pod.podId)) return 'id';
  if (selector.names.some((glob) => namePattern(glob).test(pod.name))) return 'name';
  return undefined;
}

/** The first rule whose `match` selects the Pod; a rule with an empty `match` selects every Pod. */
export function ruleFor(pod: PodIdentity, rules: readonly IdleRuleConfig[]): IdleRuleConfig | undefined {
  return rules.find((rule) => {
    const { podIds, names } = rule.match;
    return (podIds.length === 0 && names.length === 0) || selects(rule.match, pod) !== undefined;
  });
}

/** The Pod's owner opted it out of every podwarden action with PODWARDEN_IGNORE=true. */
export function ignoredByEnv(pod: Pick<PodIdentity, 'env'>): boolean {
  return pod.env[IGNORE_ENV]?.trim().toLowerCase() === 'true';
}

/** Why the Pod is excluded from the rule's actions, or undefined when it is not. */
export function exclusionOf(pod: PodIdentity, rule: IdleRuleConfig): string | undefined {
  if (ignoredByEnv(pod)) return `env ${IGNORE_ENV}=true`;
  const by = selects(rule.exclude, pod);
  if (by === 'id') return `pod id listed in idle rule "${rule.name}" exclude.podIds`;
  if (by === 'name') return `pod name matches idle rule "${rule.name}" exclude.names`;
  return undefined;
}

const MINUTE_MS = 60_000;

/** Each quiet period of the day as [start, end) in ms after UTC midnight; a period across midnight ends after DAY_MS. */
function quietSpans(rule: IdleRuleConfig): Array<[number, number]> {
  return rule.quietHours.map(({ from, to }) => {
    const start = minuteOfDay(from) * MINUTE_MS;
    let end = minuteOfDay(to) * MINUTE_MS;
    if (end <= start) end += DAY_MS;
    return [start, end];
  });
}

/** When the quiet period holding `at` ends, or undefined when `at` is outside every quiet period. */
export function quietUntil(rule: IdleRuleConfig, at: number): number | undefined {
  const midnight = Math.floor(at / DAY_MS) * DAY_MS;
  let until: number | undefined;
  // A period that began yesterday and crosses midnight holds the small hours of today.
  for (const dayStart of [midnight - DAY_MS, midnight]) {
    for (const [start, end] of quietSpans(rule)) {
      if (at >= dayStart + start && at < dayStart + end) until = Math.max(until ?? 0, dayStart + end);
    }
  }
  return until;
}

/** The first time at or after `at` outside quiet hours (periods that touch are crossed together). */
export function afterQuietHours(rule: IdleRuleConfig, at: number): number {
  // Asked several times per idle Pod per tick; most rules have no quiet hours.
  if (rule.quietHours.length === 0) return at;
  let time = at;
  for (let guard = 0; guard < 8; guard++) {
    const until = quietUntil(rule, time);
    if (until === undefined) return time;
    time = until;
  }
  return time;
}
