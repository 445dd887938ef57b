import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { toIso, VirtualClock } from '../clock.js';
import type { RunReport } from '../collectors/run.js';
import { defaultConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { Daemon } from '../daemon.js';
import { stopsDecided } from '../db/receipts.js';
import { startMailSink } from '../demo/mail-sink.js';
import type { Logger } from '../log.js';
import { InflightCounter } from '../scheduler/inflight.js';
import { VirtualScheduler } from '../scheduler/virtual.js';
import type { Scenario } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import { reportedAlerts, reportedEmails } from './alert-report.js';
import { isoSpan, podOutcomes, type ReplayReport, tallyRuns } from './report.js';
import { latencyJumpsClock } from './virtual-sim-clock.js';

export interface ReplayOptions {
  scenario: Scenario;
  /** The user's configuration (rules, schedules); its accounts are replaced by the simulator's. */
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
}

/**
 * Plays a scenario: the simulator and the daemon on one virtual clock, as fast as the machine
 * allows, and a report of what the daemon did.
 */
export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const { scenario, log } = options;
  const wallStart = performance.now();
  const clock = options.clock ?? new VirtualClock(scenario.startMs);
  const sim = await startSimulator({
    scenario,
    clock: latencyJumpsClock(clock),
    log: log.child({ component: 'simulator' }),
  });
  const tmp = options.dbPath ? undefined : mkdtempSync(join(tmpdir(), 'podwarden-replay-'));
  const config = replayConfig(options.config, scenario, sim, options.dbPath ?? join(tmp ?? '', 'replay.db'));
  // Mail goes to an in-process sink that accepts everything (or the caller's peer), never to the
  // configuration's server: warnings count as delivered, so the stops the rules would make are
  // replayed (a stop waits for its warning), and no message leaves the machine.
  const mailDir = mkdtempSync(join(tmpdir(), 'podwarden-replay-mail-'));
  const sink = options.smtp ? undefined : await startMailSink({ dir: mailDir });
  const smtp = options.smtp ?? { host: sink?.host ?? '127.0.0.1', port: sink?.port ?? 0 };
  const { user: _user, password: _password, ...email } = config.email;
  config.email = {
    ...email,
    host: smtp.host,
    port: smtp.port,
    secure: 'none',
    from: email.from ?? 'podwarden@replay.invalid',
    to: email.to.length > 0 ? email.to : ['you@replay.invalid'],
  };
  const inflight = new InflightCounter();
  const runs: RunReport[] = [];
  const start = () => {
    const started = new Daemon({ config, clock, log, inflight });
    started.events.on('collector:finished', (run) => runs.push(run));
    return { daemon: started, scheduler: new VirtualScheduler(clock, inflight, log) };
  };
  let { daemon, scheduler } = start();
  const endMs = scenario.startMs + options.durationMs;
  try {
    daemon.schedule(scheduler);
    for (const restart of [...(options.restarts ?? [])].sort((a, b) => a.atMs - b.atMs)) {
      await scheduler.runUntil(scenario.startMs + restart.atMs);
      daemon.abortRuns();
      await scheduler.stop(5_000);
      await daemon.close();
      await clock.advanceTo(scenario.startMs + restart.atMs + restart.downMs);
      ({ daemon, scheduler } = start());
      daemon.schedule(scheduler);
    }
    await scheduler.runUntil(endMs);
    daemon.abortRuns();
    await scheduler.stop(5_000);
    const counts = sim.requestLog.counts();
    return {
      scenario: scenario.name,
      ...isoSpan(scenario.startMs, endMs),
      stops: stopsDecided(daemon.db).map(({ at, podId, dryRun }) => ({ at: toIso(at), podId, dryRun })),
      alerts: reportedAlerts(daemon.db, scenario.startMs, endMs + 1),
      emails: reportedEmails(daemon.db, scenario.startMs, endMs + 1),
      api: { requests: counts.total, status429: counts.status429, status5xx: counts.status5xx, resets: counts.resets },
      pods: podOutcomes(sim.world.podStatuses(endMs)),
      collectors: tallyRuns(runs),
      wallMs: Math.round(performance.now() - wallStart),
    };
  } finally {
    await daemon.close();
    await sim.close();
    await sink?.close();
    rmSync(mailDir, { recursive: true, force: true });
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

function replayConfig(
  user: Config | undefined,
  scenario: Scenario,
  sim: { restBaseUrl: string; graphqlUrl: string },
  dbPath: string,
): Config {
  const account = {
    name: user?.accounts[0]?.name ?? 'sim',
    apiKey: scenario.apiKey,
    restBaseUrl: sim.restBaseUrl,
    graphqlBaseUrl: sim.graphqlUrl,
  };
  const base = user ? structuredClone(user) : defaultConfig([account]);
  base.accounts = defaultConfig([account]).accounts;
  base.database.path = dbPath;
  return base;
}
