import { formatMatcher } from '../alerts/matchers.js';
import type { HeldDecision } from '../alerts/notices.js';
import { silenceState } from '../alerts/silence.js';
import { snoozesAfter } from '../db/idle-state.js';
import type { Database } from '../db/open.js';
import { livePods } from '../db/pods.js';
import type { DecisionSource } from '../db/schema.js';
import { listSilences } from '../db/silences.js';

/** Every snooze and active silence at `now`, ending soonest first; `account` keeps those that concern it. */
export async function heldDecisions(database: Database, now: number, account?: string): Promise<HeldDecision[]> {
  const podNames = new Map<string, ReadonlyMap<string, string>>();
  const snoozes: HeldDecision[] = [];
  for (const snooze of await snoozesAfter(database, now)) {
    let names = podNames.get(snooze.account);
    if (!names) {
      names = new Map((await livePods(database, snooze.account)).map((pod) => [pod.podId, pod.name]));
      podNames.set(snooze.account, names);
    }
    snoozes.push({
      kind: 'snooze',
      account: snooze.account,
      subject: snooze.podId,
      name: names.get(snooze.podId) || null,
      until: snooze.until,
      createdAt: snooze.createdAt,
      source: snooze.source,
      createdBy: snooze.createdBy,
    });
  }
  const silences: HeldDecision[] = (await listSilences(database, now))
    .filter((silence) => silenceState(silence, now) === 'active')
    .map((silence) => ({
      kind: 'silence',
      account: silence.matchers.find((matcher) => matcher.name === 'account' && matcher.op === '=')?.value ?? null,
      subject: silence.matchers.map(formatMatcher).join(' '),
      name: null,
      until: silence.endsAt,
      createdAt: silence.createdAt,
      source: silence.source as DecisionSource,
      createdBy: silence.createdBy,
    }));
  return [...snoozes, ...silences]
    .filter((decision) => account === undefined || decision.account === null || decision.account === account)
    .sort((a, b) => a.until - b.until || a.subject.localeCompare(b.subject));
}
