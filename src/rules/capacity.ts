import type { Config } from '../config/schema.js';
import { AVAILABILITY_LEVELS, type CapacityWatch, watchedGpuTypeIds } from '../config/sections/capacity.js';
import type { GpuAvailabilityRecord } from '../db/catalog.js';
import type { AccountSnapshot } from '../db/snapshot.js';
import { historyKey } from '../db/snapshot-capacity.js';
import { formatUsd } from '../format.js';
import type { Finding } from './finding.js';
import type { CapacityDetails } from './finding-details.js';

/** A change worth telling: availability crossing into or out of the wanted levels, or a price move. */
interface Crossing {
  event: 'rise' | 'fall';
  from: string;
  to: string;
  at: number;
}

interface PriceMove {
  cloud: 'secure' | 'community';
  from: number;
  to: number;
  at: number;
}

const rank = (level: string | null) => AVAILABILITY_LEVELS.indexOf(level as (typeof AVAILABILITY_LEVELS)[number]);

/**
 * The latest crossing of the wanted levels in a history of availability changes. It stays the
 * latest (and its finding keeps its key) until availability crosses back, however often the
 * catalog is polled; a move between two wanted (or two unwanted) levels is not a crossing.
 * Unknown levels (null, or one we do not know) are skipped: unknown is not a change.
 */
export function latestCrossing(history: readonly GpuAvailabilityRecord[], levels: readonly string[]): Crossing | null {
  let previous: GpuAvailabilityRecord | undefined;
  let latest: Crossing | null = null;
  for (const row of history) {
    if (rank(row.availability) < 0) continue;
    if (previous?.availability && previous.availability !== row.availability) {
      const was = levels.includes(previous.availability);
      const is = levels.includes(row.availability as string);
      if (was !== is) {
        latest = {
          event: is ? 'rise' : 'fall',
          from: previous.availability,
          to: row.availability as string,
          at: row.sinceAt,
        };
      }
    }
    previous = row;
  }
  return latest;
}

/** The latest price change of at least `fraction` (relative to the price before it), if it is the latest change. */
export function latestPriceMove(history: readonly GpuAvailabilityRecord[], fraction: number): PriceMove | null {
  const moves: PriceMove[] = [];
  for (const cloud of ['secure', 'community'] as const) {
    const field = cloud === 'secure' ? 'priceSecure' : 'priceCommunity';
    let before: number | null = null;
    let last: PriceMove | null = null;
    for (const row of history) {
      const price = row[field];
      if (price === null) continue;
      if (before !== null && price !== before) last = { cloud, from: before, to: price, at: row.sinceAt };
      before = price;
    }
    if (last && Math.abs(last.to - last.from) >= fraction * last.from) moves.push(last);
  }
  return moves.sort((a, b) => b.at - a.at)[0] ?? null;
}

/**
 * A data center appears in a GPU type's list only where it is offered, so before its first row
 * it was NONE (as the catalog collector records one that drops out), if the type was listed then.
 */
function withUnlistedStart(
  history: readonly GpuAvailabilityRecord[],
  global: readonly GpuAvailabilityRecord[],
): readonly GpuAvailabilityRecord[] {
  const listedSince = global[0]?.sinceAt;
  const first = history[0];
  if (listedSince === undefined || !first || first.sinceAt <= listedSince) return history;
  return [{ ...first, availability: 'NONE', sinceAt: listedSince, lastSeenAt: listedSince }, ...history];
}

/** Every finding of the capacity watch list: pure of each account's snapshot of availability history. */
export function capacityFindings(snapshots: ReadonlyMap<string, AccountSnapshot>, config: Config): Finding[] {
  const findings: Finding[] = [];
  for (const watch of config.capacity.watch) {
    const accounts = config.accounts.map((a) => a.name).filter((name) => !watch.account || name === watch.account);
    for (const account of accounts) {
      const snapshot = snapshots.get(account);
      if (!snapshot) continue;
      const names = snapshot.capacity.gpuTypeNames;
      for (const gpuTypeId of watchedGpuTypeIds(watch, names)) {
        findings.push(...watchFindings(snapshot, watch, gpuTypeId, names.get(gpuTypeId) ?? gpuTypeId));
      }
    }
  }
  return findings;
}

/**
 * The catalog's prices in the last row that began at or before `at`, from the first history that
 * has them: a data center's rows may carry none, the overall figure's do.
 */
function priceAt(
  histories: readonly (readonly GpuAvailabilityRecord[])[],
  at: number,
): NonNullable<CapacityDetails['price']> {
  const rows = histories.map((history) => history.findLast((r) => r.sinceAt <= at) ?? history.at(-1));
  const first = (field: 'priceSecure' | 'priceCommunity') => rows.find((row) => row?.[field] != null)?.[field] ?? null;
  return { secure: first('priceSecure'), community: first('priceCommunity') };
}

function watchFindings(snapshot: AccountSnapshot, watch: CapacityWatch, gpuTypeId: string, gpuName: string): Finding[] {
  const findings: Finding[] = [];
  const { account } = snapshot;
  const historyOf = (dataCenterId: string) =>
    snapshot.capacity.histories.get(historyKey(gpuTypeId, watch.product, dataCenterId)) ?? [];
  const labels = (event: string, dataCenterId: string) => ({
    rule: 'capacity',
    account,
    gpu_type_id: gpuTypeId,
    product: watch.product,
    data_center_id: dataCenterId || 'all',
    event,
  });
  const recipients = watch.recipients ? { recipients: watch.recipients } : {};
  const global = historyOf('');
  for (const dataCenterId of watch.dataCenters ?? ['']) {
    const history = dataCenterId ? withUnlistedStart(historyOf(dataCenterId), global) : global;
    const crossing = latestCrossing(history, watch.levels);
    if (!crossing || !watch.alertOn.includes(crossing.event)) continue;
    const where = dataCenterId ? ` in ${dataCenterId}` : '';
    const headline = crossing.event === 'rise' ? 'is back' : 'is running out';
    findings.push({
      rule: 'capacity',
      key: `capacity:${account}:${gpuTypeId}:${watch.product}:${dataCenterId || 'all'}:${crossing.event}@${crossing.at}`,
      account,
      severity: crossing.event === 'rise' ? 'info' : 'warning',
      summary: `${gpuName} ${headline}: ${crossing.from} → ${crossing.to}${where}`,
      labels: labels(crossing.event, dataCenterId),
      details: {
        kind: 'capacity',
        event: crossing.event,
        gpuTypeId,
        gpuName,
        product: watch.product,
        dataCenter: dataCenterId || 'all',
        from: crossing.from,
        to: crossing.to,
        cloud: null,
        at: crossing.at,
        price: priceAt([history, global], crossing.at),
      } satisfies CapacityDetails,
      ...recipients,
    });
  }
  if (watch.alertOn.includes('price')) {
    const move = latestPriceMove(global, watch.priceChange);
    if (move) {
      const change = Math.round(((move.to - move.from) / move.from) * 100);
      findings.push({
        rule: 'capacity',
        key: `capacity:${account}:${gpuTypeId}:${watch.product}:price:${move.cloud}@${move.at}`,
        account,
        severity: 'info',
        summary: `${gpuName} ${move.cloud} price ${formatUsd(move.from)}/h → ${formatUsd(move.to)}/h (${change > 0 ? '+' : ''}${change}%)`,
        labels: labels('price', ''),
        details: {
          kind: 'capacity',
          event: 'price',
          gpuTypeId,
          gpuName,
          product: watch.product,
          dataCenter: 'all',
          from: move.from,
          to: move.to,
          cloud: move.cloud,
          at: move.at,
          price: priceAt([global], move.at),
        } satisfies CapacityDetails,
        ...recipients,
      });
    }
  }
  return findings;
}
