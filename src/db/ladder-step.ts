import { type IdleEpisodeRecord, openEpisode, updateEpisode } from './idle-state.js';
import type { Database } from './open.js';
import { type ReceiptInput, recordReceiptSync } from './receipts.js';

/** What one step of an idle episode's ladder changes in the episode. */
export type EpisodeWrite =
  | { kind: 'open'; episode: IdleEpisodeRecord }
  | {
      kind: 'update';
      key: Pick<IdleEpisodeRecord, 'account' | 'podId' | 'startedAt'>;
      change: Parameters<typeof updateEpisode>[2];
    }
  | { kind: 'none' };

/**
 * One step of an idle episode's ladder: the episode's change and its receipts, in one
 * transaction. Returns the receipts written (a receipt whose key exists is skipped: a tick
 * re-run after a crash writes nothing twice).
 */
export async function writeLadderStep(
  database: Database,
  write: EpisodeWrite,
  receipts: readonly ReceiptInput[],
): Promise<ReceiptInput[]> {
  return database.transaction(() => {
    if (write.kind === 'open') openEpisode(database, write.episode);
    else if (write.kind === 'update') updateEpisode(database, write.key, write.change);
    return receipts.filter((receipt) => recordReceiptSync(database, receipt));
  });
}
