import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { shellCommand } from '../../src/format.js';
import { packagePath } from '../../src/package-root.js';
import { hasPeer } from '../helpers/peers.js';

/**
 * On a terminal, `podwarden simulate` draws one progress bar (its own: the daemon's billing
 * backfill bar would draw over it) and then the summary. util-linux's `script` gives the CLI a
 * real pseudo-terminal.
 */
const dir = mkdtempSync(join(tmpdir(), 'podwarden-simulate-tty-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function onTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const tsx = pathToFileURL(packagePath('node_modules/tsx/dist/loader.mjs')).href;
  const command = shellCommand([process.execPath, '--import', tsx, packagePath('src/main.ts'), ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe.runIf(hasPeer('script', 'util-linux', '-V'))('podwarden simulate on a terminal', () => {
  it('shows its own progress bar and the summary, no other bar', async () => {
    const run = await onTerminal([
      'simulate',
      '--scenario',
      'demo',
      '--until',
      '3h',
      '--report',
      join(dir, 'report.json'),
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain('simulating demo [');
    expect(run.output).toContain('| 3/3 h |');
    expect(run.output).not.toContain('billing backfill');
    expect(run.output).toMatch(/simulated 3h of demo in [\d.]+ s: \d+ requests/);
    expect(run.output).toMatch(/sim: \d+ emails? would have been sent/);
  }, 120_000);
});
