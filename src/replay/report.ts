import type { RunReport } from '../collectors/run.js';

/** The replay report of SCENARIO.md; the fields named there keep their meaning. */
export interface ReplayReport {
  scenario: string;
  virtualStart: string;
  virtualEnd: string;
  stops: Array<{ at: string; podId: string; dryRun: boolean }>;
  alerts: Array<{
    at: string;
    rule: 'budget' | 'idle' | 'enforce' | 'capacity' | 'waste' | 'health';
    key: string;
    state: 'firing' | 'resolved';
  }>;
  /**
   * `delivered` is false for a message still in the outbox (always, without an email host).
   * `reason` says why it was written (first, repeat_elapsed, all_resolved, flapping…) and
   * `alertKeys` which alerts it announces (the rule is a key's first part).
   */
  emails: ReportedEmail[];
  /**
   * Per account of the configuration (each replayed in a world of its own), what it would have
   * sent and stopped; messages about alerts of several accounts (a budget over `all`) come
   * last, under the account `all`.
   */
  accounts: ReportedAccount[];
  api: { requests: number; status429: number; status5xx: number; resets: number };
  pods: Array<{ id: string; finalStatus: string }>;
  /** Collector runs by outcome, per collector: what the daemon managed to read. */
  collectors: Record<string, { ok: number; error: number; no_data: number }>;
  /** Real time the replay took, in milliseconds. */
  wallMs: number;
}

export interface ReportedEmail {
  at: string;
  to: string[];
  subject: string;
  delivered: boolean;
  reason: string;
  alertKeys: string[];
}

export interface ReportedAccount {
  name: string;
  emails: ReportedEmail[];
  stops: ReplayReport['stops'];
  /** The final status of each Pod of the account's world; empty for `all`. */
  pods: ReplayReport['pods'];
}

export function tallyRuns(runs: readonly RunReport[]): ReplayReport['collectors'] {
  const tally: ReplayReport['collectors'] = {};
  for (const run of runs) {
    const entry = tally[run.collector] ?? { ok: 0, error: 0, no_data: 0 };
    tally[run.collector] = entry;
    if (run.outcome === 'ok' || run.outcome === 'error' || run.outcome === 'no_data') entry[run.outcome]++;
  }
  // By name, not by whose first run ended first: that order depends on how answers interleave.
  return Object.fromEntries(Object.entries(tally).sort(([a], [b]) => a.localeCompare(b)));
}

export function podOutcomes(statuses: Record<string, string>): ReplayReport['pods'] {
  return Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, finalStatus]) => ({ id, finalStatus }));
}
