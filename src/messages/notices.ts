import type { FlappingNotice } from '../alerts/notices.js';
import type { RenderedMessage } from './email.js';
import { flappingView } from './flapping.js';
import { renderHtml } from './html.js';
import { renderText } from './text.js';

/** Notices that are not a group's alerts (flapping), through the same view model as every mail. */
export function renderFlappingNotice(notice: FlappingNotice, timeZone = 'UTC'): RenderedMessage {
  const view = flappingView(notice, timeZone);
  return { subject: view.subject, text: renderText(view), html: renderHtml(view) };
}
