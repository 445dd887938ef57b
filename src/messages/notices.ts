import { digestView } from './digest.js';
import { type RenderedMessage, renderView } from './email.js';
import { flappingView } from './flapping.js';

/** Notices that are not a group's alerts (flapping), through the same view model as every mail. */
export function renderFlappingNotice(...args: Parameters<typeof flappingView>): RenderedMessage {
  return renderView(flappingView(...args));
}

/** The daily digest of an account, through the same view model. */
export function renderDigest(...args: Parameters<typeof digestView>): RenderedMessage {
  return renderView(digestView(...args));
}
