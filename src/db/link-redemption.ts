import { openAlertOfSync } from './alerts.js';
import { type EnforceEpisodeKey, extendEnforceEpisodeSync } from './enforce-state.js';
import { openEpisodesSync, podSnoozesAfterSync, snoozePodSync } from './idle-state.js';
import { recordUsedLinkSync, type UsedLinkRecord, usedLinkSync } from './links.js';
import type { Database } from './open.js';
import { livePodRows } from './pod-list.js';
import type { ReceiptInput } from './receipts.js';
import type { podSnoozes, silences } from './schema.js';
import { insertSilenceSync } from './silences.js';

/** What a redeemed link writes, with what the check before it read of its subject. */
export type LinkWrite =
  | {
      kind: 'snooze';
      snooze: typeof podSnoozes.$inferInsert & { account: string; podId: string; until: number };
      /** The idle spell the link was mailed for (null: any); the Pod must still be in it. */
      episode: number | null;
    }
  | { kind: 'silence'; alertKey: string; silence: typeof silences.$inferInsert }
  | {
      kind: 'extend';
      episode: EnforceEpisodeKey;
      /** The episode's extension as the check read it: another extension meanwhile is a change. */
      fromExtendedMs: number;
      byMs: number;
      receipt: ReceiptInput;
    };

export type LinkWriteOutcome =
  | { status: 'written' }
  /** The nonce was used meanwhile: nothing written. */
  | { status: 'used'; used: UsedLinkRecord }
  /** The subject changed since the check (the Pod stopped, its spell ended, the alert resolved): nothing written. */
  | { status: 'changed' }
  /** A snooze lasting at least as long was made meanwhile: the nonce is used, the snooze kept. */
  | { status: 'longer'; until: number };

/**
 * Redeems a link in one transaction: checks again what a concurrent writer could have changed
 * since the caller's check (the nonce, the subject), records the nonce as used, and writes the
 * snooze or silence. A second redemption of one nonce finds it used and writes nothing.
 */
export async function redeemLinkWrite(
  database: Database,
  used: UsedLinkRecord,
  write: LinkWrite,
): Promise<LinkWriteOutcome> {
  return database.transaction((): LinkWriteOutcome => {
    const earlier = usedLinkSync(database, used.nonce);
    if (earlier) return { status: 'used', used: earlier };
    if (!subjectUnchanged(database, write)) return { status: 'changed' };
    if (write.kind === 'extend') {
      const moved = extendEnforceEpisodeSync(database, write.episode, write.fromExtendedMs, write.byMs, write.receipt);
      if (!moved) return { status: 'changed' };
      recordUsedLinkSync(database, used);
      return { status: 'written' };
    }
    recordUsedLinkSync(database, used);
    if (write.kind === 'silence') {
      insertSilenceSync(database, write.silence);
      return { status: 'written' };
    }
    const { snooze } = write;
    const longer = podSnoozesAfterSync(database, snooze.podId, used.usedAt).find(
      (other) => other.account === snooze.account && other.until >= snooze.until,
    );
    // A link never shortens a longer snooze someone made meanwhile.
    if (longer) return { status: 'longer', until: longer.until };
    snoozePodSync(database, snooze);
    return { status: 'written' };
  });
}

/** Writes `silence` if the alert of `alertKey` is still open, in one transaction; whether it did. */
export async function silenceOpenAlert(
  database: Database,
  alertKey: string,
  silence: typeof silences.$inferInsert,
): Promise<boolean> {
  return database.transaction(() => {
    if (openAlertOfSync(database, alertKey) === undefined) return false;
    insertSilenceSync(database, silence);
    return true;
  });
}

/** Whether the subject still passes the check the caller made before the write. */
function subjectUnchanged(database: Database, write: LinkWrite): boolean {
  if (write.kind === 'silence') return openAlertOfSync(database, write.alertKey) !== undefined;
  // The extension checks its episode as it writes (extendEnforceEpisodeSync).
  if (write.kind === 'extend') return true;
  const { account, podId } = write.snooze;
  const pod = livePodRows(database, account).find((candidate) => candidate.podId === podId);
  if (pod?.status !== 'RUNNING') return false;
  return write.episode === null || openEpisodesSync(database, account).get(podId)?.startedAt === write.episode;
}
