const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });

/** `$1,234.56`; amounts under a cent keep their first significant digits (`$0.0042`). */
export function formatUsd(amount: number): string {
  if (amount !== 0 && Math.abs(amount) < 0.01) return `$${amount.toPrecision(2)}`;
  return usd.format(amount);
}
