import { z } from 'zod';
import { duration, type ParseContext } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';

export const SMTP_SECURITY = ['tls', 'starttls', 'none'] as const;
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];

/** The usual port of each way of securing SMTP: implicit TLS (465), STARTTLS submission (587), plain (25). */
const DEFAULT_PORT: Record<SmtpSecurity, number> = { tls: 465, starttls: 587, none: 25 };

export const emailAddress = () =>
  z.email({ error: (issue) => `invalid email address "${String(issue.input)}" (expected name@example.com)` });

/** Who a rule's alerts go to instead of `email.to`. */
export const recipientsField = () => z.array(emailAddress()).min(1).optional();

/**
 * The email channel as routing sees it: configured with a host. It is also the channel of last
 * resort: with no channel configured, alerts go to it and its messages wait in the outbox, unsent
 * and logged, so no announcement is lost.
 */
export const emailChannelConfig = {
  name: 'email',
  configured: (config: { email: { host?: string | undefined } }) => config.email.host !== undefined,
  fallback: true,
} as const;

/**
 * `email`: the SMTP server alerts go through. Without a host, notifications are still decided and
 * written to the outbox (visible in `podwarden simulate` and the database) but none is sent.
 */
export function emailSection(ctx: ParseContext) {
  const fields = z
    .strictObject({
      host: z.string().min(1).optional(),
      port: z.int().min(1).max(65_535).optional(),
      secure: z.enum(SMTP_SECURITY).default('starttls'),
      user: z.string().min(1).optional(),
      ...secretShape('password', ctx),
      from: emailAddress().optional(),
      to: z.array(emailAddress()).prefault([]),
      /** A message not sent this long after it was written is abandoned (and logged), not sent late. */
      giveUpAfter: duration().prefault('24h'),
    })
    .superRefine((email, issues) => {
      if (email.host === undefined) return;
      if (email.from === undefined) issues.addIssue({ code: 'custom', path: ['from'], message: 'required with host' });
      if (email.to.length === 0) {
        issues.addIssue({ code: 'custom', path: ['to'], message: 'at least one recipient is required with host' });
      }
      if ((email.password ?? email.passwordFile) !== undefined && email.user === undefined) {
        issues.addIssue({ code: 'custom', path: ['user'], message: 'required with password' });
      }
    });
  return withSecret(fields, 'password', { required: false })
    .transform(({ giveUpAfter, port, ...email }) => ({
      ...email,
      port: port ?? DEFAULT_PORT[email.secure],
      giveUpAfterMs: giveUpAfter,
    }))
    .prefault({});
}

export type EmailConfig = z.output<ReturnType<typeof emailSection>>;
