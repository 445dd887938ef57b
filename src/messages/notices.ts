import type { DigestNotice, FlappingNotice } from '../alerts/notices.js';
import { BARE_COMMAND_LINE, type CommandLine } from './commands.js';
import { digestView } from './digest.js';
import { type RenderedMessage, renderView } from './email.js';
import { flappingView } from './flapping.js';

/** Notices that are not a group's alerts (flapping), through the same view model as every mail. */
export function renderFlappingNotice(
  notice: FlappingNotice,
  timeZone = 'UTC',
  commandLine: CommandLine = BARE_COMMAND_LINE,
): RenderedMessage {
  return renderView(flappingView(notice, timeZone, commandLine));
}

/** The daily digest of an account, through the same view model. */
export function renderDigest(notice: DigestNotice, commandLine: CommandLine = BARE_COMMAND_LINE): RenderedMessage {
  return renderView(digestView(notice, commandLine));
}
