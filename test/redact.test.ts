import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/errors.js';
import { parseConfig } from '../src/config/load.js';
import { createLogger } from '../src/log.js';
import { maskSecret, redact, registerSecret } from '../src/redact.js';

describe('redact', () => {
  it('masks registered secrets and api_key parameters wherever they appear', () => {
    registerSecret('canary-key-123456');
    expect(redact('Bearer canary-key-123456 failed')).toBe('Bearer [REDACTED] failed');
    expect(redact('https://api.runpod.io/graphql?api_key=other&x=1')).toBe(
      'https://api.runpod.io/graphql?api_key=[REDACTED]&x=1',
    );
  });

  it('masks a secret for display without revealing it', () => {
    expect(maskSecret('rpa_ABCDEFGHIJKL')).toBe('rpa_…KL');
    expect(maskSecret('short')).toBe('****');
  });

  it('keeps secrets out of every log line', () => {
    registerSecret('canary-log-key-987');
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = createLogger({ destination, pretty: false });
    log.error(
      { header: 'Bearer canary-log-key-987', nested: { key: 'canary-log-key-987' } },
      'failed with canary-log-key-987',
    );
    expect(lines.join('')).toContain('[REDACTED]');
    expect(lines.join('')).not.toContain('canary-log-key-987');
  });

  it('does not register a secret the configuration refuses, so its error keeps its words', () => {
    const raw = { accounts: [{ name: 'main', apiKey: 'rpa_inline_key_0001' }], http: { linkSecret: 'short' } };
    let message = '';
    try {
      parseConfig(raw, { env: {}, baseDir: '.' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(redact(message)).toContain('http.linkSecret: too short: at least 16 characters');
    expect(redact('a short note')).toBe('a short note');
    // The account's key, which the configuration accepted, is still masked.
    expect(redact('Bearer rpa_inline_key_0001')).toBe('Bearer [REDACTED]');
  });

  it('masks a short secret only where it stands alone, a long one wherever it appears', () => {
    registerSecret('hunter2x');
    expect(redact('password hunter2x refused; hunter2xs and xhunter2x are other words')).toBe(
      'password [REDACTED] refused; hunter2xs and xhunter2x are other words',
    );
    expect(redact('user:hunter2x@smtp "hunter2x"')).toBe('user:[REDACTED]@smtp "[REDACTED]"');
    registerSecret('rpa_0123456789ABCDEFGHIJ');
    expect(redact('Authorization: Bearerrpa_0123456789ABCDEFGHIJxyz')).toBe('Authorization: Bearer[REDACTED]xyz');
  });
});
