import {
  type AlertInput,
  type AlertRecord,
  firedCountSince,
  insertAlert,
  markAlertAbsent,
  markAlertFired,
  markAlertResolved,
  type OpenAlertState,
  openAlertStates,
  openFlap,
  openFlapOf,
  openFlaps,
  refreshAlert,
  updateFlap,
} from './alerts.js';
import type { Database } from './open.js';
import { planningInputs } from './plan-inputs.js';

/** What a tick rewrites of an episode it saw again. */
export type AlertFields = Pick<
  AlertRecord,
  'severity' | 'summary' | 'labels' | 'details' | 'recipients' | 'lastSeenAt'
>;

/** One change a tick makes to alert state (alerts/state.ts plans them), applied in order. */
export type AlertChange =
  | { kind: 'absent'; id: number }
  /** `fired`: the episode had fired, so its resolve counts for flapping. */
  | { kind: 'resolve'; id: number; key: string; fired: boolean }
  | { kind: 'refresh'; id: number; fields: AlertFields }
  | { kind: 'fire'; alert: Pick<OpenAlertState, 'id' | 'key' | 'rule' | 'account'> }
  | { kind: 'open'; input: AlertInput };

/** Flap detection's settings: a key that fired `count` times within `windowMs` flaps. */
export interface FlapLimits {
  count: number;
  windowMs: number;
}

/**
 * The open episodes, oldest first, and the planning inputs' count (plan_changes) read before
 * them: a change by any connection to which episodes are open or fired moves it, so
 * applyAlertChanges can tell that what it was planned on is still so.
 */
export async function readAlertStates(database: Database): Promise<{ version: string; open: OpenAlertState[] }> {
  const version = planningInputs(database);
  return { version, open: openAlertStates(database) };
}

/**
 * Applies one tick's changes in one transaction, with flap detection's bookkeeping (a flap
 * settles after a window without a fire or resolve, a fire extends its key's flap or opens one
 * at `count`, a resolve extends it). Refuses (false, nothing written) when the planning inputs
 * changed since `version` was read: another writer opened, fired or resolved an episode, and the
 * changes planned on the older state could open a key twice or resolve what fired again.
 */
export async function applyAlertChanges(
  database: Database,
  version: string,
  changes: readonly AlertChange[],
  now: number,
  flapping: FlapLimits,
): Promise<boolean> {
  return database.transaction(() => {
    if (planningInputs(database) !== version) return false;
    for (const flap of openFlaps(database).values()) {
      if (now - flap.lastChangeAt >= flapping.windowMs) updateFlap(database, flap.id, { settledAt: now });
    }
    const changed = (key: string) => {
      const open = openFlapOf(database, key);
      if (open) updateFlap(database, open.id, { lastChangeAt: now });
      return open !== undefined;
    };
    const fired = (alert: Pick<AlertRecord, 'key' | 'rule' | 'account'>) => {
      if (changed(alert.key) || firedCountSince(database, alert.key, now - flapping.windowMs) < flapping.count) return;
      openFlap(database, { key: alert.key, rule: alert.rule, account: alert.account, since: now, lastChangeAt: now });
    };
    for (const change of changes) {
      switch (change.kind) {
        case 'absent':
          markAlertAbsent(database, change.id, now);
          break;
        case 'resolve':
          markAlertResolved(database, change.id, now);
          if (change.fired) changed(change.key);
          break;
        case 'refresh':
          refreshAlert(database, change.id, change.fields);
          break;
        case 'fire':
          markAlertFired(database, change.alert.id, now);
          fired(change.alert);
          break;
        case 'open':
          insertAlert(database, change.input);
          if (change.input.firedAt !== null) fired(change.input);
      }
    }
    return true;
  });
}
