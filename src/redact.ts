/**
 * Secrets are registered once when read, and every log line, error and printed URL passes through
 * `redact`. A long secret is masked wherever it appears; a short one (it may spell a word) only
 * where it stands alone, so it never rewrites the messages it happens to spell.
 */
const secrets = new Map<string, RegExp>();
const MASK = '[REDACTED]';

/** Values shorter than this are too common to mask safely; they are not registered. */
const MIN_SECRET_LENGTH = 4;
/** From this length a secret is masked inside longer text too. */
const LONG_SECRET_LENGTH = 16;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Registers a secret value (once the configuration has accepted it). */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH || secrets.has(value)) return;
  const pattern =
    value.length >= LONG_SECRET_LENGTH ? escaped(value) : `(?<![\\p{L}\\p{N}_-])${escaped(value)}(?![\\p{L}\\p{N}_-])`;
  secrets.set(value, new RegExp(pattern, 'gu'));
}

export function redact(text: string): string {
  let out = text;
  for (const [secret, pattern] of secrets) {
    if (out.includes(secret)) out = out.replace(pattern, MASK);
  }
  return out.replace(/([?&]api_key=)[^&\s"']+/gi, `$1${MASK}`);
}

/** Masks a secret for display: enough to recognise which key, never enough to use it. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? '****' : `${value.slice(0, 4)}…${value.slice(-2)}`;
}
