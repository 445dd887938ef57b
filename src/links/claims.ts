/** What an emailed action link says; the token carries the claims, signed. */

/** `extend-deadline`: move a deadline later (an enforcement deadline's Keep running). */
export const LINK_ACTIONS = ['keep-running', 'silence', 'extend-deadline'] as const;
export type LinkActionKind = (typeof LINK_ACTIONS)[number];

export interface LinkClaims {
  action: LinkActionKind;
  account: string;
  /** The Pod id, or the alert's key. */
  subject: string;
  /**
   * When the snooze or silence ends. For a link that counts from the click ("Keep running 2 h"),
   * `durationMs` is set and `until` is only what it would have been at the time of mailing.
   */
  until: number;
  /** "2 h" from the click; null for an absolute end ("until tomorrow 09:00"). */
  durationMs: number | null;
  /** What the email link said: "2 h", "8 h", "until tomorrow 09:00", "4 h", "24 h". */
  label: string;
  /** Who the link was mailed to: every recipient of the message, comma-separated. */
  recipient: string;
  expiresAt: number;
  nonce: string;
  /** The zone the recipient reads times in (the confirmation page shows them so). */
  timeZone: string;
  /**
   * For a keep-running link from an idle mail: the idle episode it was about (its start). For an
   * extend-deadline link: the deadline's occurrence (the Pod's start); `durationMs` is then how much
   * later the deadline moves and `until` the new deadline as of the mailing.
   */
  episode: number | null;
}

/** When the snooze or silence of a link used at `now` ends. */
export function endOf(claims: LinkClaims, now: number): number {
  return claims.durationMs === null ? claims.until : now + claims.durationMs;
}

/** What the URL names: a token is only good for this. */
export type LinkTarget = Pick<LinkClaims, 'action' | 'account' | 'subject'>;
