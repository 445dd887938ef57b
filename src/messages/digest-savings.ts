import type { SavingsSoFar } from '../db/savings.js';
import { formatUsd, formatUsdPerHour } from '../format.js';

/**
 * The digest's running total from the savings ledger: what the account's stops saved since the
 * first one, beside the digest's own "since the last digest". None before a stop was sent.
 */
export function savedSoFarLines(sums: SavingsSoFar | undefined): string[] {
  if (sums === undefined || sums.stops === 0) return [];
  const still =
    sums.stillStopped === 0
      ? ''
      : `; ${sums.stillStopped === 1 ? '1 Pod is' : `${sums.stillStopped} Pods are`} still stopped, saving ${formatUsdPerHour(sums.savingPerHrNow)}`;
  return [
    `Since its first stop here, podwarden has saved ${formatUsd(sums.saved)} with ${sums.stops} stop${sums.stops === 1 ? '' : 's'}${still}.`,
  ];
}
