import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';
import { headerValue } from './mail-headers.js';

export interface ReceivedMail {
  /** 1 for the first message since the sink started. */
  index: number;
  /** Where the message was written, as received (`.eml`). */
  file: string;
  subject: string;
  to: string[];
}

export type MailSink = Awaited<ReturnType<typeof startMailSink>>;

export interface MailSinkOptions {
  /** The folder the `.eml` files go to (created if missing). */
  dir: string;
  host?: string;
  /** Defaults to 0: any free port. */
  port?: number;
  onMail?: (mail: ReceivedMail) => void;
}

/** A message larger than this is refused; podwarden's alert emails are a few kilobytes. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * An SMTP server that keeps every message it accepts as an `.eml` file, for the demo: podwarden
 * sends real email through nodemailer, and a newcomer opens the files in any mail client.
 * Plain SMTP on loopback only: no TLS, no authentication.
 */
export async function startMailSink(options: MailSinkOptions) {
  const host = options.host ?? '127.0.0.1';
  mkdirSync(options.dir, { recursive: true });
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    // Without certificates of its own the server would offer STARTTLS with a self-signed one.
    disabledCommands: ['STARTTLS', 'AUTH'],
    size: MAX_MESSAGE_BYTES,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(new Error(`mail sink: message larger than ${MAX_MESSAGE_BYTES} bytes refused`));
          return;
        }
        const raw = Buffer.concat(chunks);
        received += 1;
        const index = received;
        const subject = headerValue(raw.toString('utf8'), 'subject');
        const file = join(options.dir, `${String(index).padStart(4, '0')}-${slug(subject)}.eml`);
        writeFile(file, raw).then(
          () => {
            options.onMail?.({ index, file, subject, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) });
            callback();
          },
          (error: Error) => callback(new Error(`mail sink: cannot write ${file}: ${error.message}`)),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host,
    port,
    dir: options.dir,
    close: (): Promise<void> => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A file-name-safe, short form of a subject, so the folder listing reads like an inbox. */
function slug(subject: string): string {
  const words = subject
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return words || 'no-subject';
}
