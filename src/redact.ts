/**
 * Secrets (API keys, SMTP passwords) are registered once when read, and every log line, error
 * message and printed URL passes through `redact`, so a key cannot leak by a path we forgot.
 */
const secrets = new Set<string>();
const MASK = '[REDACTED]';

/** Registers a secret value; values shorter than 4 characters are too common to mask safely. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  return out.replace(/([?&]api_key=)[^&\s"']+/gi, `$1${MASK}`);
}

/** Masks a secret for display: enough to recognise which key, never enough to use it. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? '****' : `${value.slice(0, 4)}…${value.slice(-2)}`;
}
