import { randomUUID } from 'node:crypto';
import { parseMatcher } from '../alerts/matchers.js';
import { newSilence } from '../alerts/silence.js';
import { type AlertRecord, openAlertOf } from '../db/alerts.js';
import { snoozePod } from '../db/idle-state.js';
import { silenceOpenAlert } from '../db/link-redemption.js';
import type { Database } from '../db/open.js';
import type { SilenceRecord } from '../db/silences.js';
import { identityMatchers } from '../messages/commands.js';

/**
 * The status page's own forms (behind its login, not a link): the same rows as the command line
 * and the emailed links, with source `status page`, so `why`, /api/status and the digest say so.
 */

export async function snoozeFromConsole(
  database: Database,
  input: { account: string; podId: string; until: number; by: string },
  now: number,
): Promise<void> {
  await snoozePod(database, {
    account: input.account,
    podId: input.podId,
    until: input.until,
    createdAt: now,
    source: 'status page',
    createdBy: input.by,
  });
}

/** Silences the open alert of `alertKey` (by its identity labels, like the mails' command); undefined when none is open. */
export async function silenceFromConsole(
  database: Database,
  input: { alertKey: string; until: number; by: string },
  now: number,
): Promise<SilenceRecord | undefined> {
  const alert = await openAlertOf(database, input.alertKey);
  if (!alert) return undefined;
  const silence = identitySilence(alert, {
    durationMs: input.until - now,
    comment: `silenced from the status page by ${input.by}`,
    createdBy: input.by,
    source: 'status page',
    now,
  });
  // Written only while the alert is still open: it may resolve between the read and the write.
  return (await silenceOpenAlert(database, input.alertKey, silence)) ? silence : undefined;
}

/** A silence of the alert's identity labels, so it holds for every alert about the same thing. */
export function identitySilence(
  alert: Pick<AlertRecord, 'rule' | 'labels'>,
  fields: Omit<Parameters<typeof newSilence>[0], 'id' | 'matchers'>,
): SilenceRecord {
  return newSilence({
    id: randomUUID(),
    matchers: identityMatchers(alert.rule, alert.labels).map(parseMatcher),
    ...fields,
  });
}
