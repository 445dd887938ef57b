import type { Readable } from 'node:stream';

/** The lines of a console's output that are raw JSON log lines, not sentences for a person. */
export function rawJsonLines(text: string): string[] {
  return text.split('\n').filter((line) => {
    if (!line.trim().startsWith('{')) return false;
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  });
}

/** A child's output as it arrives, for tests that wait on a line and keep reading afterwards. */
export class Output {
  private text = '';
  private waiters: Array<{ pattern: RegExp; resolve: (match: RegExpExecArray) => void }> = [];
  private ended = false;

  constructor(stream: Readable) {
    stream.on('data', (chunk) => {
      this.text += String(chunk);
      this.waiters = this.waiters.filter((waiter) => {
        const match = waiter.pattern.exec(this.text);
        if (match) waiter.resolve(match);
        return !match;
      });
    });
    stream.on('end', () => {
      this.ended = true;
    });
  }

  get all(): string {
    return this.text;
  }

  /** Resolves with the first match of `pattern` in everything read so far or still to come. */
  until(pattern: RegExp): Promise<RegExpExecArray> {
    const match = pattern.exec(this.text);
    if (match) return Promise.resolve(match);
    if (this.ended) return Promise.reject(new Error(`output ended before ${pattern}: ${this.text}`));
    return new Promise((resolve) => this.waiters.push({ pattern, resolve }));
  }
}
