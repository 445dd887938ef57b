import { formatDateTime, formatUsdPerHour } from '../format.js';
import type { CapacityDetails } from '../rules/finding-details.js';
import { silenceBlock } from './commands.js';
import type { AlertData, AlertView, RenderContext } from './view.js';

/** "$3.99/h secure cloud, $3.29/h community cloud", or undefined when the catalog gave no price. */
function priceText(price: CapacityDetails['price']): string | undefined {
  const parts = [
    ...(price?.secure == null ? [] : [`${formatUsdPerHour(price.secure)} secure cloud`]),
    ...(price?.community == null ? [] : [`${formatUsdPerHour(price.community)} community cloud`]),
  ];
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** Capacity mails: a watched GPU type came back, is running out, or changed price. */
export function capacityView(alert: AlertData, d: CapacityDetails, ctx: RenderContext): AlertView {
  const where = d.dataCenter === 'all' ? 'across data centers' : `in ${d.dataCenter}`;
  const at = formatDateTime(d.at, ctx.timeZone);
  const silence = silenceBlock(
    ctx.commandLine,
    alert,
    'Silence these changes for 24h',
    '24h',
    `${d.gpuName} changes known`,
  );
  const price = priceText(d.price);
  const rows: [string, string][] = [
    ['GPU', `${d.gpuName} (${d.gpuTypeId})`],
    ...(price === undefined || d.event === 'price' ? [] : ([['Price', price]] as [string, string][])),
    ['Product', d.product],
    ['Data center', d.dataCenter === 'all' ? 'all data centers together' : d.dataCenter],
    ['Changed at', at],
    ['Account', alert.account],
  ];
  if (d.event === 'price') {
    const from = Number(d.from);
    const to = Number(d.to);
    const change = Math.round(((to - from) / from) * 100);
    const signed = `${change > 0 ? '+' : ''}${change}%`;
    return {
      headline:
        `${d.gpuName} ${d.cloud ?? ''} price ${formatUsdPerHour(from)} → ${formatUsdPerHour(to)} (${signed})`.replace(
          '  ',
          ' ',
        ),
      title: `${d.gpuName} price change`,
      tone: 'info',
      lead: [
        `The ${d.cloud ? `${d.cloud} ` : ''}price of ${d.gpuName} went from ${formatUsdPerHour(from)} to ${formatUsdPerHour(to)} (${signed}) at ${at}.`,
        'Check the cost of the Pods you plan to start.',
      ],
      blocks: [
        { type: 'table', rows: [['Price', `${formatUsdPerHour(from)} → ${formatUsdPerHour(to)}`], ...rows] },
        silence,
      ],
    };
  }
  const rise = d.event === 'rise';
  return {
    headline: `${d.gpuName} ${rise ? 'is back' : 'is running out'}: ${d.from} → ${d.to} ${where}`,
    title: `${d.gpuName} ${rise ? 'availability up' : 'availability down'}`,
    tone: rise ? 'info' : 'warning',
    lead: [
      `${d.gpuName} availability for ${d.product} ${where} went from ${d.from} to ${d.to} at ${at}${price === undefined ? '' : `; a GPU costs ${price}`}.`,
      rise
        ? 'If you were waiting for it, now is a good time to start your Pods.'
        : 'Running Pods are not affected, but a Pod stopped now may not get its GPU back.',
    ],
    blocks: [{ type: 'table', rows: [['Availability', `${d.from} → ${d.to}`], ...rows] }, silence],
  };
}
