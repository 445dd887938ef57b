import { html, type SafeHtml } from './html.js';

/**
 * Bars and sparklines as inline SVG: the CSP forbids style attributes, and SVG geometry is
 * attributes, not style. Colours come from the stylesheet's classes.
 */

const round = (n: number) => Math.round(n * 100) / 100;

/** A budget's bar: spent, the forecast's range, a mark at the amount; the scale reaches past it. */
export function budgetBar(figures: {
  amount: number;
  live: number;
  low: number | null;
  high: number | null;
}): SafeHtml {
  const { amount, live } = figures;
  const scale = Math.max(amount, live, figures.high ?? 0) || 1;
  const x = (value: number) => round((Math.max(0, value) / scale) * 100);
  const range =
    figures.low !== null && figures.high !== null
      ? html`<rect class="range" x="${x(Math.min(figures.low, figures.high))}" y="3" width="${round(Math.max(0, x(Math.max(figures.low, figures.high)) - x(Math.min(figures.low, figures.high))))}" height="8"/>`
      : '';
  return html`<svg class="bar" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" aria-hidden="true"><rect class="track" x="0" y="3" width="100" height="8"/>${range}<rect class="spent${live > amount ? ' over' : ''}" x="0" y="3" width="${x(live)}" height="8"/><rect class="limit" x="${round(Math.min(99.4, x(amount)))}" y="0" width="0.6" height="14"/></svg>`;
}

export interface SparkSample {
  at: number;
  /** IDLE, ACTIVE or UNKNOWN (unknown is drawn as a short red tick, never as a low bar). */
  state: string;
  gpuUtil: number | null;
}

/** GPU utilization as bars (0–100 %), one slot per sample, the idle threshold dashed. */
export function sparkSvg(samples: readonly SparkSample[], threshold: number, small = false): SafeHtml {
  const width = Math.max(samples.length, 1) * 4;
  const bars = samples.map((sample, index) => {
    const x = index * 4;
    // Unknown fills the whole height in pale red: a gap in the evidence must not look like a quiet GPU.
    if (sample.gpuUtil === null || sample.state === 'UNKNOWN') {
      return html`<rect class="unknown" x="${x}" y="0" width="3" height="100"><title>unknown</title></rect>`;
    }
    // A floor of 12 % keeps a 0 % sample visible as a grey stub rather than nothing.
    const height = round(Math.max(12, Math.min(100, sample.gpuUtil)));
    return html`<rect class="${sample.state === 'IDLE' ? 'idle' : 'active'}" x="${x}" y="${round(100 - height)}" width="3" height="${height}"/>`;
  });
  const y = round(100 - Math.min(100, threshold));
  return html`<svg class="spark${small ? ' small' : ''}" viewBox="0 0 ${width} 100" preserveAspectRatio="none" role="img" aria-label="GPU utilization, ${samples.length} samples"><line class="threshold" x1="0" y1="${y}" x2="${width}" y2="${y}" vector-effect="non-scaling-stroke"/>${bars}</svg>`;
}
