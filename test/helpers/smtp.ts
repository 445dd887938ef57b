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
  /** Messages the server accepted: it replied 250 to their data. */
  received: ReceivedMail[];
  /** Resolves when `count` messages in all have been accepted. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  /** Resolves when the data of `count` messages in all has arrived, accepted yet or not. */
  waitForData(count: number): Promise<ReceivedMail[]>;
  /**
   * From now on, the reply to a message's data comes this long after the data (Infinity: never).
   * A client that leaves before the reply has not sent the message: it is not in `received`, as a
   * server that delivers only what it acknowledged would not deliver it.
   */
  setReplyDelay(ms: number): void;
  /** How many SMTP connections clients have opened so far. */
  connections(): number;
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
  const arrived: ReceivedMail[] = [];
  const waiters: Array<{ count: number; resolve: (mail: ReceivedMail[]) => void }> = [];
  const dataWaiters: Array<{ count: number; resolve: (mail: ReceivedMail[]) => void }> = [];
  let replyDelayMs = 0;
  let connected = 0;
  /** Replies held back, by session id: a session that closes first drops its message. */
  const held = new Map<string, NodeJS.Timeout>();
  const wake = (list: ReceivedMail[], pending: typeof waiters) => {
    for (const waiter of pending.filter((w) => list.length >= w.count)) {
      pending.splice(pending.indexOf(waiter), 1);
      waiter.resolve([...list]);
    }
  };
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
    onClose(session) {
      clearTimeout(held.get(session.id));
      held.delete(session.id);
    },
    onMailFrom(_address, _session, callback) {
      if (options.refuse?.()) {
        callback(Object.assign(new Error('Service not available, try later'), { responseCode: 421 }));
        return;
      }
      callback();
    },
    onConnect(_session, callback) {
      connected += 1;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const keys = headerValue(raw, 'X-Podwarden-Alert-Keys');
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw,
          messageId: headerValue(raw, 'Message-ID'),
          subject: headerValue(raw, 'Subject'),
          alertKeys: keys ? keys.split(/,\s*/) : [],
          body: raw.slice(raw.search(/\r?\n\r?\n/)),
        };
        arrived.push(mail);
        wake(arrived, dataWaiters);
        const accept = () => {
          held.delete(session.id);
          received.push(mail);
          wake(received, waiters);
          callback();
        };
        if (replyDelayMs === 0) accept();
        else if (Number.isFinite(replyDelayMs)) held.set(session.id, setTimeout(accept, replyDelayMs));
        else
          held.set(
            session.id,
            setTimeout(() => undefined, 2 ** 31 - 1),
          );
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
    connections: () => connected,
    port,
    received,
    waitFor: (count) =>
      received.length >= count
        ? Promise.resolve([...received])
        : new Promise((resolve) => waiters.push({ count, resolve })),
    waitForData: (count) =>
      arrived.length >= count
        ? Promise.resolve([...arrived])
        : new Promise((resolve) => dataWaiters.push({ count, resolve })),
    setReplyDelay: (ms) => {
      replyDelayMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        for (const timer of held.values()) clearTimeout(timer);
        server.close(() => resolve());
      }),
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
