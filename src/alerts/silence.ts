import type { SilenceRecord } from '../db/silences.js';
import type { NotifyAlert } from './alert.js';
import { matchesAll } from './matchers.js';

export type SilenceState = 'pending' | 'active' | 'expired';

/** A silence's state at `now`, from its times alone (Alertmanager's getState). */
export function silenceState(silence: Pick<SilenceRecord, 'startsAt' | 'endsAt'>, now: number): SilenceState {
  if (now < silence.startsAt) return 'pending';
  return now < silence.endsAt ? 'active' : 'expired';
}

/** The labels a silence is matched against: the alert's labels plus its key. */
export function matchableLabels(alert: Pick<NotifyAlert, 'key' | 'labels'>): Record<string, string> {
  return { ...alert.labels, key: alert.key };
}

/** Silence stage: drops every alert (firing or resolved) that an active silence matches. */
export function muteSilenced(batch: NotifyAlert[], silences: readonly SilenceRecord[], now: number): NotifyAlert[] {
  const active = silences.filter((silence) => silenceState(silence, now) === 'active');
  if (active.length === 0) return batch;
  return batch.filter((alert) => !active.some((silence) => matchesAll(silence.matchers, matchableLabels(alert))));
}

/** A silence that cannot be made as asked. */
export class SilenceError extends Error {
  constructor(message: string) {
    super(`silence: ${message}`);
    this.name = 'SilenceError';
  }
}

/** A new silence from now for `durationMs`; at least one matcher, and one that can match something. */
export function newSilence(input: {
  id: string;
  matchers: SilenceRecord['matchers'];
  durationMs: number;
  comment: string;
  createdBy: string;
  /** Where it was made; the command line by default. */
  source?: SilenceRecord['source'];
  now: number;
}): SilenceRecord {
  if (input.matchers.length === 0) throw new SilenceError('at least one --match is required');
  if (input.durationMs <= 0) throw new SilenceError('the duration must be greater than 0');
  if (input.matchers.every((matcher) => matcher.op === '!=' || matcher.op === '!~')) {
    throw new SilenceError(
      'at least one matcher must be = or =~ (a silence of only negations would mute nearly everything)',
    );
  }
  return {
    id: input.id,
    matchers: input.matchers,
    comment: input.comment,
    createdBy: input.createdBy,
    source: input.source ?? 'command',
    createdAt: input.now,
    startsAt: input.now,
    endsAt: input.now + input.durationMs,
  };
}
