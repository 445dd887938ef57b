import { createTransport } from 'nodemailer';
import type { EmailConfig } from '../config/sections/email.js';
import { redact } from '../redact.js';

/** One email as the outbox holds it. */
export interface OutgoingEmail {
  messageId: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The Date header: when the message was written, the same on every attempt. */
  date: number;
  headers: Record<string, string>;
}

/** An SMTP send that failed: the server was unreachable, timed out, or refused (with its reply code). */
export class SendError extends Error {
  constructor(
    message: string,
    readonly responseCode: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SendError';
  }
}

export interface Mailer {
  /**
   * Resolves with the server's final reply once it has accepted the message. `signal` abandons
   * the attempt: the connection is closed before the server's acceptance, so the message is not
   * delivered by a server that delivers only what it acknowledged, and the outbox sends it again.
   */
  send(email: OutgoingEmail, signal?: AbortSignal): Promise<string>;
  close(): void;
}

/** TLS settings beyond the configuration (a private CA in tests); production trusts the system's CAs. */
export interface TlsExtras {
  ca?: string | Buffer;
}

/**
 * A nodemailer SMTP transport for the email section (`secure`: implicit TLS, STARTTLS required or
 * plain; login when a user is set). Short timeouts: a dead server fails an attempt quickly and the
 * outbox retries later. `keepOpen` keeps one connection until `close()` (a replay's many mails).
 */
export function smtpMailer(email: EmailConfig, tls: TlsExtras = {}, options: { keepOpen?: boolean } = {}): Mailer {
  if (!email.host || !email.from) throw new Error('smtpMailer: the email section has no host or from');
  const transport = createTransport({
    host: email.host,
    port: email.port,
    secure: email.secure === 'tls',
    requireTLS: email.secure === 'starttls',
    ignoreTLS: email.secure === 'none',
    ...(email.user ? { auth: { user: email.user, pass: email.password ?? '' } } : {}),
    ...(tls.ca ? { tls: { ca: tls.ca } } : {}),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    // An abandoned send (shutdown) must not keep the process alive waiting for the server's FIN.
    socketCloseTimeout: 1_000,
    ...(options.keepOpen ? { pool: true as const, maxConnections: 1 } : {}),
  });
  const from = email.from;
  return {
    async send(message, signal) {
      try {
        const info = await transport.sendMail({
          from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          messageId: message.messageId,
          date: new Date(message.date),
          headers: message.headers,
          ...(signal ? { signal } : {}),
        });
        return String(info.response ?? '');
      } catch (error) {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        const what = redact((error as Error).message);
        throw new SendError(`smtp ${email.host}:${email.port}: ${code ? `${code}: ` : ''}${what}`, responseCode, {
          cause: error,
        });
      }
    },
    close: () => transport.close(),
  };
}
