import { formatDateTime, formatElapsed } from '../format.js';
import type { HealthDetails } from '../rules/finding-details.js';
import { silenceBlock } from './commands.js';
import type { AlertData, AlertView, RenderContext } from './view.js';

/** Health mails: podwarden itself cannot do its job (here: its Pod data is too old to act on). */
export function healthView(alert: AlertData, d: HealthDetails, ctx: RenderContext): AlertView {
  const age = d.lastSuccessAt === null ? null : formatElapsed(d.evaluatedAt - d.lastSuccessAt);
  const last =
    d.lastSuccessAt === null
      ? 'has never read'
      : `last read ${formatDateTime(d.lastSuccessAt, ctx.timeZone)} (${age} ago)`;
  return {
    headline: `Idle stops paused on ${alert.account}: Pod data ${age === null ? 'never read' : `${age} old`}`,
    title: `Idle stops paused on ${alert.account}`,
    tone: 'critical',
    lead: [
      `podwarden ${last} the Pods of account ${alert.account}; past ${formatElapsed(d.limitMs)} it does not trust them, so it stops no Pod until they are read again.`,
      'Check the API key and RunPod’s status; podwarden keeps retrying on its own.',
    ],
    blocks: [
      {
        type: 'table',
        rows: [
          ['Last successful read', d.lastSuccessAt === null ? 'never' : formatDateTime(d.lastSuccessAt, ctx.timeZone)],
          ['Trusted for', formatElapsed(d.limitMs)],
          ['Collector', d.collector],
          ['Account', alert.account],
        ],
      },
      silenceBlock(ctx.commandLine, alert, 'Silence this for 1h', '1h', 'outage known'),
    ],
  };
}
