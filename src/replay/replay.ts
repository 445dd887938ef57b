import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { smtpMailer } from '../channels/email-smtp.js';
import { CHANNELS } from '../channels/index.js';
import { toIso, VirtualClock } from '../clock.js';
import type { RunReport } from '../collectors/run.js';
import type { Config } from '../config/schema.js';
import { Daemon } from '../daemon.js';
import { stopsDecided } from '../db/receipts.js';
import { type MailSink, startMailSink } from '../demo/mail-sink.js';
import type { Logger } from '../log.js';
import { InflightCounter } from '../scheduler/inflight.js';
import { VirtualScheduler } from '../scheduler/virtual.js';
import type { Scenario } from '../simulator/scenario.js';
import { type Simulator, startSimulator } from '../simulator/server.js';
import { reportedAccounts, reportedAlerts, reportedEmails } from './alert-report.js';
import { reportedChannels } from './channel-report.js';
import { inProcessExchange } from './in-process-exchange.js';
import { podOutcomes, type ReplayReport, tallyRuns } from './report.js';
import { replayedAccounts, sandboxConfig } from './sandbox-config.js';
import { latencyJumpsClocks } from './virtual-sim-clock.js';

export interface ReplayOptions {
  scenario: Scenario;
  /**
   * The user's configuration (rules, schedules). Each of its accounts plays the scenario in a
   * world of its own; nothing the file names is called (sandbox-config.ts).
   */
  config?: Config;
  /** How much virtual time to play, from the scenario's start. */
  durationMs: number;
  /** Keep the database here; by default a temporary one is used and removed. */
  dbPath?: string;
  /**
   * Restarts of the daemon, as a deploy does: stopped `atMs` after the scenario's start and
   * started again `downMs` later on the same database, while the simulated world goes on.
   */
  restarts?: ReadonlyArray<{ atMs: number; downMs: number }>;
  /**
   * Where the replay's mail goes. A replay never uses the configuration's SMTP server (a backtest
   * of a production file must not mail real people about simulated Pods): by default an
   * in-process sink accepts everything; a test may hand its own SMTP peer.
   */
  smtp?: { host: string; port: number };
  /** The virtual clock to play on (it must stand at the scenario's start); a new one by default. */
  clock?: VirtualClock;
  log: Logger;
  /**
   * Called as virtual time passes (about every virtual hour), with the virtual time reached; the
   * replay waits for what it returns (a test acts there as a person would, between two hours).
   */
  onProgress?: (virtualMs: number) => void | Promise<void>;
  /**
   * Called at the end of the played time, while the simulators still answer (their ground truth
   * over HTTP, `/_sim/truth/...`): a test compares what the daemon stored with what was charged.
   */
  atEnd?: (simulators: readonly Simulator[]) => Promise<void>;
}

/** Not a terminal, so the daemon's progress bars log instead of drawing over the replay's own. */
const discard = new Writable({ write: (_chunk, _encoding, done) => done() });

/** How far the virtual clock runs between two progress calls. */
const PROGRESS_STEP_MS = 3_600_000;

/**
 * Plays a scenario: the simulator and the daemon on one virtual clock, as fast as the machine
 * allows, and a report of what the daemon did.
 */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const { scenario, log } = options;
  const wallStart = performance.now();
  const clock = options.clock ?? new VirtualClock(scenario.startMs);
  // One simulated world per account, each playing the whole scenario: the scenario mapped onto
  // every account of the file, so a backtest shows what each account's alerts would have been.
  const sims: Simulator[] = [];
  const tmp = options.dbPath ? undefined : mkdtempSync(join(tmpdir(), 'podwarden-replay-'));
  const mailDir = mkdtempSync(join(tmpdir(), 'podwarden-replay-mail-'));
  let sink: MailSink | undefined;
  const cleanUp = async () => {
    for (const sim of sims) await sim.close();
    await sink?.close();
    rmSync(mailDir, { recursive: true, force: true });
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  };
  let config: ReturnType<typeof sandboxConfig>;
  try {
    const accounts = replayedAccounts(options.config);
    const simClocks = latencyJumpsClocks(clock, accounts.length);
    for (const [index, account] of accounts.entries()) {
      sims.push(
        await startSimulator({
          scenario,
          clock: simClocks[index] as ReturnType<typeof latencyJumpsClocks>[number],
          log: log.child({ component: 'simulator', account }),
        }),
      );
    }
    // Mail goes to an in-process sink that accepts everything (or the caller's peer), never to the
    // configuration's server: warnings count as delivered, so the stops the rules would make are
    // replayed (a stop waits for its warning), and no message leaves the machine.
    sink = options.smtp ? undefined : await startMailSink({ dir: mailDir });
    config = sandboxConfig(options.config, scenario.apiKey, sims, {
      dbPath: options.dbPath ?? join(tmp ?? '', 'replay.db'),
      smtp: options.smtp ?? { host: sink?.host ?? '127.0.0.1', port: sink?.port ?? 0 },
    });
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const inflight = new InflightCounter();
  const runs: RunReport[] = [];
  const local = inProcessExchange(sims);
  // One SMTP connection for the whole replay (across restarts too): each new connection waits
  // out smtp-server's fixed 100 ms greeting delay in real time, while virtual time stands.
  const mailer = smtpMailer(config.email, {}, { keepOpen: true });
  // Every channel but email (whose mail goes to the sink) is captured: a webhook or chat URL of
  // the file is never called, and the outbox keeps what each would have received.
  const captured = new Set(CHANNELS.map((channel) => channel.name).filter((name) => name !== 'email'));
  const start = async () => {
    const started = await Daemon.open({
      config,
      clock,
      log,
      inflight,
      local,
      mailer,
      captured,
      progressStream: discard,
    });
    started.events.on('collector:finished', (run) => runs.push(run));
    return { daemon: started, scheduler: new VirtualScheduler(clock, inflight, log) };
  };
  let { daemon, scheduler } = await start();
  const endMs = scenario.startMs + options.durationMs;
  try {
    daemon.schedule(scheduler);
    for (const restart of [...(options.restarts ?? [])].sort((a, b) => a.atMs - b.atMs)) {
      await scheduler.runUntil(scenario.startMs + restart.atMs);
      daemon.abortRuns();
      await scheduler.stop(5_000);
      await daemon.close();
      await clock.advanceTo(scenario.startMs + restart.atMs + restart.downMs);
      ({ daemon, scheduler } = await start());
      daemon.schedule(scheduler);
    }
    for (let at = clock.now(); options.onProgress && at < endMs; at += PROGRESS_STEP_MS) {
      await scheduler.runUntil(Math.min(at + PROGRESS_STEP_MS, endMs));
      await options.onProgress(clock.now());
    }
    await scheduler.runUntil(endMs);
    daemon.abortRuns();
    await scheduler.stop(5_000);
    await options.atEnd?.(sims);
    const counts = sims.map((sim) => sim.requestLog.counts());
    const sum = (pick: (c: (typeof counts)[number]) => number) => counts.reduce((total, c) => total + pick(c), 0);
    const stops = await stopsDecided(daemon.db);
    const emails = await reportedEmails(daemon.db, scenario.startMs, endMs + 1);
    return {
      scenario: scenario.name,
      virtualStart: toIso(scenario.startMs),
      virtualEnd: toIso(endMs),
      stops: stops.map(({ at, podId, dryRun }) => ({ at: toIso(at), podId, dryRun })),
      alerts: await reportedAlerts(daemon.db, scenario.startMs, endMs + 1),
      emails: emails.map(({ account: _account, ...email }) => email),
      channels: await reportedChannels(daemon.db, scenario.startMs, endMs + 1),
      accounts: reportedAccounts(
        config.accounts,
        sims.map((sim) => sim.world.podStatuses(endMs)),
        stops,
        emails,
      ),
      api: {
        requests: sum((c) => c.total),
        status429: sum((c) => c.status429),
        status5xx: sum((c) => c.status5xx),
        resets: sum((c) => c.resets),
      },
      pods: podOutcomes((sims[0] as Simulator).world.podStatuses(endMs)),
      collectors: tallyRuns(runs),
      wallMs: Math.round(performance.now() - wallStart),
    };
  } finally {
    await daemon.close();
    // Before the sink closes, which waits for its connections to end.
    mailer.close();
    await cleanUp();
  }
}
