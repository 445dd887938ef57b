import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, spawnCli } from '../helpers/cli.js';
import { Output } from './output.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-after-demo-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A printed command line run as a person pastes it: through a shell, from another folder. */
function paste(line: string, cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], {
      cwd,
      env: { ...process.env, PODWARDEN_CONFIG: '', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The command lines of one "Try these" block, by the word after `main.js`/`main.ts`. */
function commandsIn(block: string): Record<'why' | 'snooze' | 'silenceAdd' | 'silenceList', string> {
  const lines = block.split('\n').filter((line) => /^ {2}\S/.test(line) && !line.startsWith('  #'));
  const find = (pattern: RegExp) => {
    const line = lines.find((candidate) => pattern.test(candidate));
    if (line === undefined) throw new Error(`no command matching ${pattern} in:\n${block}`);
    return line.trim();
  };
  return {
    why: find(/main\.[jt]s why /),
    snooze: find(/main\.[jt]s snooze /),
    silenceAdd: find(/main\.[jt]s silence add /),
    silenceList: find(/main\.[jt]s silence list /),
  };
}

async function statusNow(statusUrl: string): Promise<number> {
  const status = (await (await fetch(statusUrl)).json()) as { now: string };
  return Date.parse(status.now);
}

const HOUR = 3_600_000;

describe('after the demo', () => {
  it('prints why, snooze and silence commands that work pasted, on the demo clock, during and after the demo', async () => {
    const demoDir = join(dir, 'demo');
    const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
    const child = spawnCli(['demo', '--port', '0', '--dir', demoDir]);
    const stdout = new Output(child.stdout);
    const stderr = new Output(child.stderr);
    const exited = once(child, 'exit');
    const configPath = join(demoDir, 'podwarden.yaml');
    let printed: ReturnType<typeof commandsIn>;
    try {
      const statusUrl = (await stdout.until(/^ {2}Status:\s+(\S+)$/m))[1] ?? '';
      const block = (await stdout.until(/^Try these on the demo[^\n]*\n(?:.*\n)*?.*silence list.*\n/m))[0];
      expect(block).toContain(`its configuration stays in ${configPath}`);
      printed = commandsIn(block);
      // Every command names the demo's Pod and its configuration file, which is there to be read.
      for (const line of Object.values(printed)) expect(line).toMatch(/ --config \S+podwarden\.yaml$/);
      expect(printed.why).toMatch(/ why nb-demo /);
      expect(printed.snooze).toMatch(/ snooze nb-demo 4h /);
      expect(printed.silenceAdd).toMatch(/--match pod_id=nb-demo/);
      // The comment has an apostrophe: quoted so the shell passes it whole.
      expect(printed.silenceAdd).toContain(`--comment 'demo: nb-demo'\\''s idle alerts'`);
      expect(existsSync(configPath)).toBe(true);

      expect((await paste(printed.why, elsewhere)).code).toBe(0);

      const before = await statusNow(statusUrl);
      const snooze = await paste(printed.snooze, elsewhere);
      const after = await statusNow(statusUrl);
      expect({ code: snooze.code, stderr: snooze.stderr }).toEqual({ code: 0, stderr: '' });
      const untilText = /snoozed until (\S+)/.exec(snooze.stdout)?.[1] ?? '';
      const until = Date.parse(untilText);
      // 4h on the daemon's clock (the scenario's day, 2026-11-02), not on the system's: the
      // status API's "now" (whole seconds) bounds the moment the snooze was made.
      expect(until).toBeGreaterThanOrEqual(before + 4 * HOUR);
      expect(until).toBeLessThan(after + 4 * HOUR + 1000);
      expect(snooze.stdout).toContain("(the daemon's clock)");

      const why = await paste(printed.why, elsewhere);
      expect(why.code).toBe(0);
      expect(why.stdout).toContain(`nb-demo (demo): snoozed until ${untilText}`);

      const added = await paste(printed.silenceAdd, elsewhere);
      expect({ code: added.code, stderr: added.stderr }).toEqual({ code: 0, stderr: '' });
      const id = added.stdout.trim();
      const listed = await paste(printed.silenceList, elsewhere);
      expect(listed.code).toBe(0);
      const row = listed.stdout.split('\n').find((line) => line.startsWith(`${id}\t`)) ?? '';
      const [, state, ends, matchers, , comment] = row.split('\t');
      expect({ state, matchers, comment }).toEqual({
        state: 'active',
        matchers: 'rule=idle,account=demo,pod_id=nb-demo',
        comment: "demo: nb-demo's idle alerts",
      });
      // 2h of the demo's clock as well.
      expect(Date.parse(ends ?? '')).toBeGreaterThanOrEqual(after + 2 * HOUR);
      expect(Date.parse(ends ?? '')).toBeLessThan((await statusNow(statusUrl)) + 2 * HOUR + 1000);
    } finally {
      child.kill('SIGINT');
    }
    const [code] = await exited;
    expect({ code, stderr: code === 0 ? '' : stderr.all }).toEqual({ code: 0, stderr: '' });

    // At the end, the same commands once more, and they still work on what the demo left.
    const ending = stdout.all.slice(stdout.all.indexOf('podwarden demo stopped'));
    expect(commandsIn(ending)).toEqual(printed);
    expect(existsSync(configPath)).toBe(true);
    const why = await paste(printed.why, elsewhere);
    expect(why.code).toBe(0);
    expect(why.stdout).toMatch(/nb-demo \(demo\): snoozed until 2026-11-02T/);
  }, 240_000);
});
