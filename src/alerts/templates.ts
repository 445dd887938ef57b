/**
 * Messages are written in src/messages/; this re-export keeps the alert pipeline's imports
 * working until its call sites import from there.
 */
export { type RenderedMessage, renderMessage } from '../messages/email.js';
