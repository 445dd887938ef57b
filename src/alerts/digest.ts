import { DAY_MS, HOUR_MS } from '../buckets.js';
import type { Config } from '../config/schema.js';
import { firingAlerts, openFlaps } from '../db/alerts.js';
import type { OutboxRow } from '../db/channel-outbox.js';
import { digestGroupKey, lastDigestAt, queueDigestOnce, type StopSince, stopsBetween } from '../db/digest.js';
import type { Database } from '../db/open.js';
import { savingsOverlapping, savingsSoFar } from '../db/savings.js';
import { listSilences } from '../db/silences.js';
import { currentPeriod, localHour } from '../rules/period.js';
import { toNotifyAlert } from './alert.js';
import type { DigestNotice, DigestSaving, FlappingNotice, HeldDecisions } from './notices.js';
import { flappingNotice } from './notify.js';
import { type MessageRenderer, noticeRows } from './outbox.js';
import type { AlertSettings } from './settings.js';
import { muteSilenced } from './silence.js';
import { readTeamSpend, showsTeamSpend } from './team-spend.js';

/**
 * A stop counts as saving for a week at most: a Pod still stopped after that is its owner's
 * choice, no longer podwarden's saving.
 */
const SAVING_HORIZON_MS = 7 * DAY_MS;

/**
 * The daily digest (`alerts.digest`): during the configured local hour, once per account and day,
 * what is still open and what the stops saved since the last one; none when there is neither. Its
 * outbox row is the record that it went out, so a restart within the hour sends no second one.
 */
export async function queueDigests(
  database: Database,
  config: Config,
  settings: AlertSettings,
  now: number,
  renderer: MessageRenderer,
  held: HeldDecisions,
): Promise<OutboxRow[]> {
  const digest = config.alerts.digest;
  // Only within the hour itself: a digest that comes at 15:00 because a daemon started then
  // would be a surprise, and a missed one is told by the next.
  const render = renderer.digest?.bind(renderer);
  if (!digest || render === undefined || localHour(now, digest.timeZone) !== digest.hour) return [];
  const dayStart = currentPeriod(
    { period: 'day', timeZone: digest.timeZone, weekStartsOn: 'monday', monthResetDay: 1 },
    now,
  ).startMs;
  const queued: OutboxRow[] = [];
  for (const account of config.accounts) {
    const last = await lastDigestAt(database, account.name, renderer.channel);
    if (last !== null && last >= dayStart) continue;
    const found = await digestNotice(database, settings, account.name, last, digest.timeZone, now, held);
    if (!found) continue;
    // Spend by team rides along with a digest that goes out anyway; it never sends one by itself.
    const notice = showsTeamSpend(config)
      ? { ...found, teamSpend: await readTeamSpend(database, config, account.name, now) }
      : found;
    const rows = await queueDigestOnce(
      database,
      account.name,
      dayStart,
      noticeRows({
        channel: renderer.channel,
        groupKey: digestGroupKey(account.name),
        reason: 'digest',
        account: account.name,
        rendered: render(notice),
        alertKeys: [...notice.open.map((alert) => alert.key), ...notice.flapping.map((flap) => flap.key)],
        now,
      }),
    );
    queued.push(...rows);
  }
  return queued;
}

/** What one account's digest says, or nothing when nothing is open and nothing was saved. */
export async function digestNotice(
  database: Database,
  settings: AlertSettings,
  account: string,
  lastDigest: number | null,
  timeZone: string,
  now: number,
  heldDecisions: HeldDecisions = async () => [],
): Promise<DigestNotice | undefined> {
  const silences = await listSilences(database, now);
  const flapping: FlappingNotice[] = [];
  for (const flap of (await openFlaps(database)).values()) {
    if (flap.account !== account || !settings.emailed(flap.rule)) continue;
    const notice = await flappingNotice(database, flap, settings, silences, now);
    if (notice) flapping.push(notice);
  }
  const flappingKeys = new Set(flapping.map((flap) => flap.key));
  const firing = (await firingAlerts(database))
    // A budget over every account (account `all`) concerns each of them: each digest lists it.
    .filter((record) => (record.account === account || record.account === 'all') && settings.emailed(record.rule))
    .filter((record) => !flappingKeys.has(record.key))
    .flatMap((record) => toNotifyAlert(record, settings.defaultRecipients) ?? []);
  const open = muteSilenced(firing, silences, now);
  const since = lastDigest ?? now - DAY_MS;
  const savings = (await stopsBetween(database, account, now - SAVING_HORIZON_MS, now))
    .map((stop) => savingOf(stop, now, since))
    .filter((saving) => saving.decidedAt >= since || saving.notBilledMs > 0);
  const saved = savings.reduce((sum, saving) => sum + saving.saved, 0);
  const held = await heldDecisions(database, now, account);
  const ledger = (await savingsOverlapping(database, { from: 0, to: now })).filter((s) => s.account === account);
  const [savedSoFar] = savingsSoFar(ledger, now);
  // A Pod kept running by someone's decision spends money: worth the digest on its own.
  if (open.length === 0 && flapping.length === 0 && saved <= 0 && held.length === 0) return undefined;
  const recipients = new Set([...open, ...flapping].flatMap((item) => item.recipients));
  return {
    kind: 'digest',
    account,
    open,
    flapping,
    savings,
    since,
    sinceLastDigest: lastDigest !== null,
    timeZone,
    held,
    ...(savedSoFar === undefined ? {} : { savedSoFar }),
    recipients: [...(recipients.size > 0 ? recipients : settings.defaultRecipients)].sort(),
    now,
  };
}

/**
 * What a stop kept from being billed between `from` (the last digest) and now: from the decision
 * until the Pod ran again (it started after the stop) or vanished, else until now, counted from
 * `from` at the earliest so no hour is counted in two digests. A Pod seen running with no start
 * after the stop is claimed nothing: when it ran again is unknown. A dry-run stop would have
 * saved until the idle episode ended (the Pod got busy, went away…).
 */
export function savingOf(stop: StopSince, now: number, from: number): DigestSaving {
  let end: number;
  if (stop.dryRun) end = stop.episodeEndedAt ?? now;
  else if (stop.podGoneAt !== null) end = stop.podGoneAt;
  else if (stop.podStatus === 'RUNNING') {
    end = stop.podStartedAt !== null && stop.podStartedAt > stop.decidedAt ? stop.podStartedAt : stop.decidedAt;
  } else end = now;
  const notBilledMs = Math.max(0, Math.min(end, now) - Math.max(stop.decidedAt, from));
  return {
    podId: stop.podId,
    podName: stop.podName,
    decidedAt: stop.decidedAt,
    dryRun: stop.dryRun,
    savingPerHr: stop.savingPerHr,
    notBilledMs,
    ongoing: end >= now,
    saved: (stop.savingPerHr * notBilledMs) / HOUR_MS,
  };
}
