import { createHmac } from 'node:crypto';

/**
 * How a webhook delivery is signed (docs/webhooks.md): HMAC-SHA256 with the destination's secret
 * over `<unix seconds>.<body>`, in one header. The timestamp is signed with the body, so a
 * receiver that refuses old timestamps refuses a replayed delivery, and none can be moved in time.
 */

export const SIGNATURE_HEADER = 'Podwarden-Signature';
export const DELIVERY_HEADER = 'Podwarden-Delivery';

/** The signature header's value for `body` sent at `atMs`: `t=<unix seconds>,v1=<hex>`. */
export function signatureHeader(secret: string, atMs: number, body: string): string {
  const timestamp = Math.floor(atMs / 1000);
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}
