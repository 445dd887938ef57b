import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { startProgress } from '../../src/collectors/progress.js';
import { createLogger } from '../../src/log.js';

function capture(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 100 });
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

function capturedLog() {
  const out = capture(false);
  const log = createLogger({ level: 'info', destination: out.stream });
  const messages = () =>
    out
      .text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).msg as string);
  return { log, messages };
}

describe('progress', () => {
  it('draws a bar on a terminal and logs only the outcome', () => {
    const terminal = capture(true);
    const { log, messages } = capturedLog();
    const progress = startProgress({
      label: 'billing backfill',
      total: 4,
      unit: 'chunks',
      log,
      stream: terminal.stream,
    });
    progress.advance(2);
    progress.advance(2);
    progress.finish();
    progress.finish();

    expect(terminal.text()).toContain('billing backfill [');
    expect(terminal.text()).toContain('0/4 chunks');
    expect(messages()).toEqual(['billing backfill: done']);
  });

  it('logs a line every 10 % without a terminal, and says where it stopped', () => {
    const notTerminal = capture(false);
    const { log, messages } = capturedLog();
    const progress = startProgress({ label: 'backfill', total: 20, unit: 'chunks', log, stream: notTerminal.stream });
    for (let i = 0; i < 15; i++) progress.advance();
    progress.finish();
    progress.advance();

    expect(notTerminal.text()).toBe('');
    expect(messages()).toEqual([
      'backfill: started',
      ...[10, 20, 30, 40, 50, 60, 70].map((percent) => `backfill: ${percent}%`),
      'backfill: stopped at 15/20 chunks',
    ]);
  });
});
