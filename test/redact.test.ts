import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
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
});
