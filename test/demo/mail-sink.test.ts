import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeEncodedWords, headerValue } from '../../src/demo/mail-headers.js';
import { type MailSink, type ReceivedMail, startMailSink } from '../../src/demo/mail-sink.js';

let dir: string;
let sink: MailSink | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-sink-'));
});

afterEach(async () => {
  await sink?.close();
  sink = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('startMailSink', () => {
  it('keeps each message nodemailer sends as an .eml file and reports it once', async () => {
    const received: ReceivedMail[] = [];
    const mailDir = join(dir, 'mail');
    sink = await startMailSink({ dir: mailDir, onMail: (mail) => received.push(mail) });
    const transport = createTransport({ host: sink.host, port: sink.port, secure: false, ignoreTLS: true });
    const subjects = ['[podwarden] Budget demo-daily: live spend $101.20 ≥ 100 % of $100', 'Idle: nb-demo'];
    for (const subject of subjects) {
      await transport.sendMail({ from: 'pw@example.com', to: 'you@example.com', subject, text: `body of ${subject}` });
    }
    transport.close();

    expect(received.map((mail) => [mail.index, mail.subject, mail.to])).toEqual([
      [1, subjects[0], ['you@example.com']],
      [2, subjects[1], ['you@example.com']],
    ]);
    expect(readdirSync(mailDir).sort()).toEqual([
      '0001-podwarden-budget-demo-daily-live-spend-101-20-100-of-100.eml',
      '0002-idle-nb-demo.eml',
    ]);
    const first = readFileSync(received[0]?.file ?? '', 'utf8');
    expect(headerValue(first, 'Subject')).toBe(subjects[0]);
    expect(first).toContain('body of [podwarden] Budget');
  });

  it('plain SMTP only: it offers neither STARTTLS nor AUTH, so a client never upgrades to a self-signed certificate', async () => {
    sink = await startMailSink({ dir });
    const transport = createTransport({ host: sink.host, port: sink.port, secure: false });
    // nodemailer upgrades opportunistically when offered STARTTLS and would reject the certificate.
    await expect(transport.verify()).resolves.toBe(true);
    transport.close();
  });
});

describe('headerValue', () => {
  it('unfolds continuation lines and decodes RFC 2047 words across them', () => {
    const raw = [
      'From: a@example.com',
      'Subject: =?UTF-8?Q?Budget_=E2=80=94?=',
      ' =?UTF-8?B?IHRvZGF5?= over',
      'To: b@example.com',
      '',
      'Subject: not a header, the body',
    ].join('\r\n');
    expect(headerValue(raw, 'subject')).toBe('Budget — today over');
    expect(headerValue(raw, 'x-missing')).toBe('');
  });

  it('leaves plain text alone and falls back to UTF-8 for an unknown charset', () => {
    expect(decodeEncodedWords('plain = text ?= here')).toBe('plain = text ?= here');
    expect(decodeEncodedWords('=?x-unknown?B?w6k=?=')).toBe('é');
    expect(decodeEncodedWords('=?ISO-8859-1?Q?caf=E9?=')).toBe('café');
  });
});
