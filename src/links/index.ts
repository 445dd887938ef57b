/** Signed action links in emails: the API the web layer serves them with. */

export { describeRefusal, type LinkRefusal } from '../messages/links.js';
export type { LinkClaims, LinkTarget } from './claims.js';
export { silenceFromConsole, snoozeFromConsole } from './console.js';
export { csrfFor, csrfMatches } from './csrf.js';
export { checkLink, redeemLink } from './redeem.js';
export { loadLinkSecret } from './secret.js';
export { signLink } from './token.js';
