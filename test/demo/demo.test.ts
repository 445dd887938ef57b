import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockDatabase } from '../../src/db/daemon-lock.js';
import { headerValue } from '../../src/demo/mail-headers.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { textOf } from '../helpers/mail-text.js';
import { Output, rawJsonLines } from './output.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-demo-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('podwarden demo', () => {
  it('says where to look, serves metrics and status on the scenario clock, and exits 0 on Ctrl-C', async () => {
    const demoDir = join(dir, 'interrupted');
    // What a previous demo left: replaced; what someone else put there: kept.
    mkdirSync(join(demoDir, 'mail'), { recursive: true });
    writeFileSync(join(demoDir, 'podwarden.db'), 'not a database');
    writeFileSync(join(demoDir, 'mail', '0001-old.eml'), 'Subject: old\r\n\r\nold');
    writeFileSync(join(demoDir, 'mail', 'notes.txt'), 'mine');

    const child = spawnCli(['demo', '--port', '0', '--dir', demoDir]);
    const stdout = new Output(child.stdout);
    const stderr = new Output(child.stderr);
    const exited = once(child, 'exit');
    let metricsUrl: string | undefined;
    try {
      metricsUrl = (await stdout.until(/^ {2}Metrics:\s+(http:\/\/127\.0\.0\.1:\d+)\/metrics$/m))[1];
      // The status page comes first, before anything else the demo prints; the emails' links point there.
      expect(stdout.all.split('\n')[0]).toBe(
        `podwarden demo: open ${metricsUrl}/ to watch it (the status page: idle Pods, alerts, Keep running)`,
      );
      expect(readFileSync(join(demoDir, 'podwarden.yaml'), 'utf8')).toContain(`publicUrl: ${metricsUrl}`);
      const page = await fetch(`${metricsUrl}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h2>Idle GPUs</h2>');
      const statusUrl = (await stdout.until(/^ {2}Status:\s+(\S+)$/m))[1];
      const mailDir = (await stdout.until(/^ {2}Mail folder:\s+(\S+) /m))[1];
      expect(statusUrl).toBe(`${metricsUrl}/api/status`);
      expect(mailDir).toBe(join(demoDir, 'mail'));
      await stdout.until(/What happens/);

      expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
      const metrics = await fetch(`${metricsUrl}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toMatch(/^podwarden_/m);
      const status = (await (await fetch(statusUrl ?? '')).json()) as { now: string };
      // The daemon reads the simulator's clock: the scenario starts at 09:00 UTC on its own date.
      expect(status.now).toMatch(/^2026-11-02T09:0[01]:/);
      expect(readdirSync(mailDir ?? '')).toEqual(['notes.txt']);
    } finally {
      child.kill('SIGINT');
    }
    const [code, signal] = await exited;
    expect({ code, signal, stderr: code === 0 ? '' : stderr.all }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(stdout.all).toMatch(/podwarden demo stopped: 0 messages in /);
    await expect(fetch(`${metricsUrl}/healthz`)).rejects.toThrow();
  });

  it('refuses a --for that is not a positive duration and a port out of range, exit 2', async () => {
    const notDuration = await runCli(['demo', '--for', 'soon']);
    expect(notDuration.code).toBe(2);
    expect(notDuration.stderr).toMatch(/--for: /);
    const zero = await runCli(['demo', '--for', '0s']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--for: expected a positive duration/);
    const port = await runCli(['demo', '--port', '70000']);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/--port: expected an integer from 0 to 65535/);
  });

  it('refuses to start, and leaves the files alone, where a daemon holds the database', async () => {
    const held = join(dir, 'held');
    mkdirSync(held);
    writeFileSync(join(held, 'podwarden.db'), 'what the running one has');
    const lock = lockDatabase(join(held, 'podwarden.db'));
    try {
      const result = await runCli(['demo', '--for', '5s', '--port', '0', '--dir', held]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`with pid ${process.pid} on host `);
      expect(readFileSync(join(held, 'podwarden.db'), 'utf8')).toBe('what the running one has');
    } finally {
      lock.release();
    }
  });

  it('ends by itself after --for, exit 0, saying so; its log goes to the file it names, not the console', async () => {
    const demoDir = join(dir, 'for');
    const result = await runCli(['demo', '--for', '5s', '--port', '0', '--dir', demoDir, '--log-level', 'info']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(rawJsonLines(result.stdout)).toEqual([]);
    expect(result.stdout).toMatch(/stops by itself after 5s/);
    expect(result.stdout).toMatch(/podwarden demo stopped: 0 messages in /);
    const logFile = /^ {2}Log:\s+(\S+)/m.exec(result.stdout)?.[1];
    expect(logFile).toBe(join(demoDir, 'podwarden.log'));
    expect(readFileSync(logFile ?? '', 'utf8')).toContain('"msg":"podwarden running"');
  });

  it(
    'plays its story in real time: a budget alert, an idle warning, a guard holding the stop, a dry-run stop',
    async () => {
      const demoDir = join(dir, 'story');
      // The story takes about five minutes of real time (rules run once a minute at :30). The test
      // waits for the story, not for the clock: on a loaded machine a late poll makes the
      // fresh-data guard hold the stop one more minute, which is the daemon doing its job.
      const child = spawnCli(['demo', '--port', '0', '--dir', demoDir]);
      const stdout = new Output(child.stdout);
      const stderr = new Output(child.stderr);
      const exited = once(child, 'exit');
      // A story that never comes ends the demo, and the wait below fails naming what it waited for.
      const giveUp = setTimeout(() => child.kill('SIGINT'), 10 * 60_000);
      try {
        await stdout.until(/ {2}action {2}nb-demo@demo would be stopped now: dry-run stop/);
        await stdout.until(/ {2}mail {4}\[demo\] Pod demo-notebook would be stopped at .* \(dry run\)/);
        await stdout.until(/ {2}mail {4}\[[^\]]+\] Budget demo-daily at /);
        await stdout.until(/ {2}mail {4}\[[^\]]+\] H200 SXM is back: NONE → HIGH/);
      } finally {
        clearTimeout(giveUp);
        child.kill('SIGINT');
      }
      const [code] = await exited;
      // The daemon's log (a loaded machine's skipped runs included) goes to its file, not here.
      expect({ code, stderr: stderr.all }).toEqual({ code: 0, stderr: '' });
      expect(rawJsonLines(stdout.all)).toEqual([]);

      const actions = stdout.all
        .split('\n')
        .filter((line) => / {2}action {2}nb-demo@demo /.test(line))
        .map((line) => line.replace(/^\d\d:\d\d:\d\d {2}action {2}nb-demo@demo /, ''));
      // Each held stop names its guard and why.
      const held = /^not stopped: the (warning_delivered|fresh_data) guard held the stop back \(.+\)$/;
      expect(actions.slice(0, 2)).toEqual(['is idle: idle alert', 'will be stopped if it stays idle: stop warning']);
      // The stop comes due before the warning is delivered: it waits for it (warning_delivered), at
      // least once by design, and once more for each late poll (fresh_data). On a loaded machine a
      // poll may land so late that the Pod cannot be judged: that spell's stop is cancelled as
      // unknown (never as busy: the notebook stays idle) and a new spell is warned again.
      const between = actions.slice(2, -1);
      expect(between.filter((line) => held.test(line)).length).toBeGreaterThanOrEqual(1);
      const restart = [
        held,
        /^cannot be judged: the planned stop is cancelled \(unknown: .+\); a new idle spell starts over$/,
        /^is idle: idle alert$/,
        /^will be stopped if it stays idle: stop warning$/,
      ];
      for (const line of between)
        expect(
          restart.some((pattern) => pattern.test(line)),
          line,
        ).toBe(true);
      expect(actions.at(-1)).toBe('would be stopped now: dry-run stop (idle.rules[].dryRun), nothing was stopped');

      const mailDir = join(demoDir, 'mail');
      const mails = readdirSync(mailDir).filter((file) => file.endsWith('.eml'));
      const subjects = mails.map((file) => headerValue(readFileSync(join(mailDir, file), 'utf8'), 'subject'));
      expect(subjects).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^\[[^\]]+\] Budget demo-daily at \d+% \(\$\d+\.\d\d of \$100\)/),
          expect.stringMatching(/^\[[^\]]+\] Pod demo-notebook would be stopped at .* \(dry run\)/),
          expect.stringMatching(/^\[[^\]]+\] H200 SXM is back: NONE → HIGH/),
        ]),
      );
      // One console line per message, naming its subject and file.
      for (const [index, subject] of subjects.entries()) {
        expect(stdout.all).toContain(`  mail    ${subject} → ${join(demoDir, 'mail', mails[index] ?? '')}`);
      }
      expect(stdout.all).toContain(`podwarden demo stopped: ${mails.length} messages in ${mailDir}`);
      expect(existsSync(join(demoDir, 'podwarden.db'))).toBe(true);
      // The mails' commands are the ones the demo prints: this podwarden, the demo's configuration.
      const why = /^ {2}(\S.* why nb-demo --config \S+)$/m.exec(stdout.all)?.[1];
      expect(why).toMatch(/main\.[jt]s why nb-demo --config \S+podwarden\.yaml$/);
      const warning = mails.find((file) =>
        /would be stopped/.test(headerValue(readFileSync(join(mailDir, file), 'utf8'), 'subject')),
      );
      expect(textOf(readFileSync(join(mailDir, warning ?? ''), 'utf8'))).toContain(why);
    },
    12 * 60_000,
  );
});
