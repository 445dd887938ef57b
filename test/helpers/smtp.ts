import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { headerValue } from '../../src/demo/mail-headers.js';

/** One message as the SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  messageId: string;
  subject: string;
  /** X-Podwarden-Alert-Keys, split. */
  alertKeys: string[];
  body: string;
}

export interface SmtpPeer {
  port: number;
  received: ReceivedMail[];
  /** Resolves when `count` messages in all have arrived. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/**
 * A real SMTP server (smtp-server) on 127.0.0.1: plain by default, with `tls` for implicit TLS or
 * STARTTLS, `auth` to require a login. Port 0 picks a free port; pass one to come back on it.
 */
export async function startSmtp(
  options: {
    port?: number;
    secure?: boolean;
    tls?: { key: string; cert: string };
    auth?: { user: string; pass: string };
    /** While this returns true, every message is refused with a temporary error (421): SMTP down. */
    refuse?: () => boolean;
  } = {},
): Promise<SmtpPeer> {
  const received: ReceivedMail[] = [];
  const waiters: Array<{ count: number; resolve: (mail: ReceivedMail[]) => void }> = [];
  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    disabledCommands: [...(options.tls ? [] : ['STARTTLS']), ...(options.auth ? [] : ['AUTH'])],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onMailFrom(_address, _session, callback) {
      if (options.refuse?.()) {
        callback(Object.assign(new Error('Service not available, try later'), { responseCode: 421 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const keys = headerValue(raw, 'X-Podwarden-Alert-Keys');
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          messageId: headerValue(raw, 'Message-ID'),
          subject: headerValue(raw, 'Subject'),
          alertKeys: keys ? keys.split(/,\s*/) : [],
          body: raw.slice(raw.search(/\r?\n\r?\n/)),
        });
        for (const waiter of waiters.filter((w) => received.length >= w.count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve([...received]);
        }
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve([...received])
        : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A self-signed certificate for 127.0.0.1 (openssl), which the client is told to trust as its CA. */
export function selfSignedCert(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
