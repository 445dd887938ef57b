import { apiClientFor } from './api/from-config.js';
import type { ApiClient, RateLimitWindow } from './api/index.js';
import type { LocalExchange } from './api/local-exchange.js';
import type { Mailer } from './channels/email-smtp.js';
import type { Clock } from './clock.js';
import type { CollectorName } from './collectors/collector.js';
import { collectors } from './collectors/index.js';
import { type RunReport, runCollector } from './collectors/run.js';
import type { Config } from './config/schema.js';
import type { DaemonEvents } from './daemon-events.js';
import { recordAccounts } from './db/accounts.js';
import { recordDaemonClock } from './db/daemon-clock.js';
import { databaseWriteFailure } from './db/errors.js';
import type { Database } from './db/open.js';
import { openDaemonDatabase } from './db/open-daemon.js';
import { applyRetention, type RetentionResult, retentionPolicy } from './db/retention.js';
import { EventBus } from './events.js';
import type { Logger } from './log.js';
import { BARE_COMMAND_LINE, type CommandLine } from './messages/commands.js';
import type { InflightCounter } from './scheduler/inflight.js';
import type { Job, Scheduler } from './scheduler/scheduler.js';
import { TickRunner } from './tick/run.js';

export interface DaemonOptions {
  config: Config;
  clock: Clock;
  log: Logger;
  /** Counts real I/O so a virtual-time loop knows when it may move time. */
  inflight?: InflightCounter;
  /** Only these collectors (default: every enabled one). */
  only?: readonly CollectorName[];
  /** Answers API requests instead of the network (a replay's in-process simulators). */
  local?: LocalExchange;
  /** Where collectors draw progress bars (collector.ts); a replay hands a non-terminal so only its own bar draws. */
  progressStream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** A mailer the caller keeps open and closes (a replay's); by default one per tick with mail due. */
  mailer?: Mailer;
  /** Channels that record their deliveries as taken without making them (a backtest's; NotificationContext). */
  captured?: ReadonlySet<string>;
  /**
   * How a person runs this podwarden (the program and `--config FILE`), for the commands its
   * mails and pages quote; `podwarden` with no file when the caller does not know.
   */
  commandLine?: CommandLine;
}

/** How long one collector run may take before it is aborted (real time; a safety net). */
const RUN_TIMEOUT_MS = 10 * 60_000;
/** Retention runs once a day, off the hour so it does not meet the hourly collectors. */
const RETENTION_SCHEDULE = '17 3 * * *';
/** Rules, actions and alerts every minute, half a minute after the Pod poll has landed. */
const EVALUATION_SCHEDULE = '30 * * * * *';

/** The composition root; scheduling is the caller's (croner live, an event loop in a replay). */
export class Daemon {
  readonly events: EventBus<DaemonEvents>;
  /** How the commands quoted in mails and pages run this podwarden. */
  readonly commandLine: CommandLine;
  private readonly apis = new Map<string, ApiClient>();
  private readonly shutdown = new AbortController();
  /** The last failed database write, until a write succeeds again (readiness, metrics). */
  private writeProblem: string | undefined;
  private readonly tick: TickRunner;

  /** Opens the daemon's database and registers the configured accounts in it. */
  static async open(options: DaemonOptions): Promise<Daemon> {
    const daemon = new Daemon(options, await openDaemonDatabase(options.config.database.path, options));
    await daemon.recordAccounts();
    return daemon;
  }

  private constructor(
    private options: DaemonOptions,
    readonly db: Database,
  ) {
    const { config, clock, log } = options;
    this.commandLine = options.commandLine ?? BARE_COMMAND_LINE;
    this.events = new EventBus<DaemonEvents>(log);
    this.tick = new TickRunner(log);
    for (const account of config.accounts) {
      this.apis.set(
        account.name,
        apiClientFor(config, account, {
          clock,
          log,
          inflight: options.inflight,
          local: options.local,
          onRequest: (event) => this.events.emit('api:request', event),
        }),
      );
    }
  }

  /**
   * A database that cannot be written (disk full) is reported, not fatal: the daemon stays up,
   * unready, with the failure in /readyz and podwarden_database_writable, and retries on every run.
   */
  private async recordAccounts(): Promise<void> {
    try {
      await recordAccounts(
        this.db,
        this.options.config.accounts.map((a) => a.name),
        this.options.clock.now(),
      );
    } catch (error) {
      if (!this.noteWriteFailure('record accounts', error)) throw error;
    }
  }

  /**
   * Records how far this daemon's clock is from the system time (`systemNow`), so `snooze` and
   * `silence` act on its time. For a daemon in real time only: a replay's virtual clock races.
   */
  async recordClockOffset(systemNow: number): Promise<void> {
    const now = this.options.clock.now();
    try {
      await recordDaemonClock(this.db, { offsetMs: now - systemNow, startedAt: now });
    } catch (error) {
      if (!this.noteWriteFailure('record the daemon clock', error)) throw error;
    }
  }

  /** True when `error` was a failed database write, which it records as the database's problem. */
  private noteWriteFailure(op: string, error: unknown): boolean {
    const failure = databaseWriteFailure(error);
    if (failure === undefined) return false;
    this.setWriteProblem(op, failure);
    return true;
  }

  private setWriteProblem(op: string, failure: string): void {
    if (this.writeProblem === undefined) this.options.log.error({ op, reason: failure }, 'database cannot be written');
    this.writeProblem = `${op}: ${failure}`;
  }

  /** Why the database could not be written lately, or undefined when its last write succeeded. */
  databaseWriteProblem(): string | undefined {
    return this.writeProblem;
  }

  /**
   * Runs on `config` from the next run on (a reload, src/daemon-reload.ts, which has checked that
   * what is bound at construction, the database and the API clients, is the same). A collector run
   * or an evaluation tick in flight finishes with the configuration it started with.
   */
  reconfigure(config: Config): void {
    this.options = { ...this.options, config };
  }

  /** The collectors this daemon runs, in registry order. */
  enabledCollectors(): CollectorName[] {
    const { config, only } = this.options;
    return [...collectors.keys()].filter((name) => (only ? only.includes(name) : config.collectors[name].enabled));
  }

  /** One job per (collector, account), so a slow account never holds up another's poll. */
  jobs(): Job[] {
    const jobs: Job[] = [];
    for (const name of this.enabledCollectors()) {
      for (const account of this.options.config.accounts) {
        jobs.push({
          name: `${name}@${account.name}`,
          schedule: this.options.config.collectors[name].schedule,
          run: async () => void (await this.collect(name, account.name)),
        });
      }
    }
    if (this.tick.hasSteps) {
      jobs.push({ name: 'evaluate', schedule: EVALUATION_SCHEDULE, run: () => this.evaluate() });
    }
    jobs.push({ name: 'retention', schedule: RETENTION_SCHEDULE, run: async () => void (await this.retain()) });
    return jobs;
  }

  /** Adds every job to the scheduler and starts it. */
  schedule(scheduler: Scheduler): void {
    for (const job of this.jobs()) scheduler.add(job);
    scheduler.start();
  }

  /** Runs one collector for one account now; never throws. */
  async collect(name: CollectorName, account: string): Promise<RunReport> {
    const collector = collectors.get(name);
    const api = this.apis.get(account);
    if (!collector || !api) throw new Error(`collect: unknown collector ${name} or account ${account}`);
    const report = await runCollector(collector, {
      account,
      api,
      db: this.db,
      config: this.options.config,
      clock: this.options.clock,
      log: this.options.log,
      signal: this.shutdown.signal,
      progressStream: this.options.progressStream,
      timeoutMs: RUN_TIMEOUT_MS,
    });
    if (report.databaseFailure) this.setWriteProblem(`collector ${name}@${account}`, report.databaseFailure);
    else if (report.outcome === 'ok' && this.writeProblem !== undefined) {
      this.options.log.info('database can be written again');
      this.writeProblem = undefined;
      await this.recordAccounts();
    }
    this.events.emit('collector:finished', report);
    await this.events.settled();
    return report;
  }

  /** Every enabled collector once for every account, collectors in parallel per account. */
  async collectOnce(): Promise<RunReport[]> {
    const runs = this.options.config.accounts.flatMap((account) =>
      this.enabledCollectors().map((name) => this.collect(name, account.name)),
    );
    return Promise.all(runs);
  }

  /** One evaluation tick (src/tick/run.ts): one snapshot per account, then every step on one `now`. */
  async evaluate(): Promise<void> {
    const { config, clock } = this.options;
    const now = clock.now();
    const unjudged = await this.tick.run(
      {
        config,
        db: this.db,
        clock,
        signal: this.shutdown.signal,
        apis: this.apis,
        events: this.events,
        inflight: this.options.inflight,
        mailer: this.options.mailer,
        captured: this.options.captured,
        commandLine: this.commandLine,
      },
      now,
      (op, error) => void this.noteWriteFailure(op, error),
    );
    if (unjudged === undefined) return;
    this.events.emit('evaluation:finished', { at: now, unjudged });
    await this.events.settled();
  }

  async retain(): Promise<RetentionResult> {
    const result = await applyRetention(this.db, retentionPolicy(this.options.config), this.options.clock.now());
    this.options.log.info(result, 'retention applied');
    this.events.emit('retention:finished', result);
    return result;
  }

  /** Each account's rate-limit windows as the API last reported them (for metrics; read only). */
  rateLimits(): Array<{ account: string; windows: RateLimitWindow[] }> {
    return [...this.apis].map(([account, api]) => ({ account, windows: api.budget.remaining() }));
  }

  /** Aborts every collector run still in flight (their waits on the clock end at once). */
  abortRuns(): void {
    if (!this.shutdown.signal.aborted) this.shutdown.abort(new Error('podwarden is shutting down'));
  }

  /** Aborts what is still running, closes the API clients and the database. */
  async close(): Promise<void> {
    this.abortRuns();
    await Promise.allSettled([...this.apis.values()].map((api) => api.close()));
    this.db.close();
  }
}
