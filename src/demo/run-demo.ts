import { once } from 'node:events';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { startRuntime } from '../daemon-runtime.js';
import { assertNotLocked } from '../db/daemon-lock.js';
import type { Logger } from '../log.js';
import { packagePath } from '../package-root.js';
import { ScaledClock } from '../simulator/scaled-clock.js';
import { loadScenario } from '../simulator/scenario.js';
import { startSimulator } from '../simulator/server.js';
import { bannerLines, followDaemon, mailLine, statusPageLine, tryLines } from './console.js';
import { writeDemoConfig } from './demo-config.js';
import { startMailSink } from './mail-sink.js';

export interface DemoOptions {
  /** The folder for the demo's database and mail (its own files there are replaced each run). */
  dir: string;
  /** Where the metrics and status server listens, `host:port`. */
  listen: string;
  /** Shown in the banner when the demo ends by itself (`--for`). */
  stopsAfter?: string;
  /** The demo ends when this aborts (Ctrl-C, or the `--for` timer). */
  signal: AbortSignal;
  write: (line: string) => void;
  log: Logger;
  /** Where `log` writes, named in the banner. */
  logFile: string;
  /** The words that run this podwarden (`node /repo/dist/main.js`), for the printed and mailed commands. */
  program: readonly string[];
}

/** The Pod whose idle story the demo plays (config/scenarios/demo.yaml): the commands it prints name it. */
const DEMO_POD = 'nb-demo';

/** The scenario the demo plays; its timeline is what the banner announces. */
const DEMO_SCENARIO = packagePath('config', 'scenarios', 'demo.yaml');

/**
 * `podwarden demo`: the simulator on the demo scenario, the daemon against it on the same clock,
 * the metrics server, and an SMTP sink that keeps each email as an `.eml` file. Everything runs
 * in this process on loopback and stops when `signal` aborts.
 */
export async function runDemo(options: DemoOptions): Promise<{ mails: number }> {
  const { log, write } = options;
  const dir = resolve(options.dir);
  const mailDir = join(dir, 'mail');
  // Before its files go: a demo still running there keeps them, and this one is refused.
  await assertNotLocked(join(dir, 'podwarden.db'));
  clearPreviousRun(dir, mailDir);
  // The address is known before anything starts, so it is the first line and the emails' links work.
  const listen = await withRealPort(options.listen);
  write(statusPageLine(`http://${listen}`));

  const scenario = loadScenario(DEMO_SCENARIO);
  if (!scenario.pods.some((pod) => pod.id === DEMO_POD)) {
    throw new Error(`${DEMO_SCENARIO}: no Pod ${DEMO_POD}, which the demo's printed commands name`);
  }
  // Real time: the daemon's schedules run on croner's real clock, and the idle window's sample
  // count assumes a Pod poll every 10 scenario seconds.
  const clock = new ScaledClock({ startMs: scenario.startMs, speed: 1 });
  const closers: Array<() => Promise<void>> = [];
  let mails = 0;
  let tryCommands: string[] = [];
  try {
    const sim = await startSimulator({ scenario, clock, log: log.child({ component: 'simulator' }) });
    closers.push(() => sim.close());
    const sink = await startMailSink({
      dir: mailDir,
      onMail: (mail) => {
        mails += 1;
        write(mailLine(clock.now(), mail));
      },
    });
    closers.push(() => sink.close());
    const written = writeDemoConfig({
      sim: { restBaseUrl: sim.restBaseUrl, graphqlUrl: sim.graphqlUrl, apiKey: scenario.apiKey },
      dir,
      listen,
      smtp: { host: sink.host, port: sink.port },
    });
    const { config } = written;
    const commandLine = { program: options.program, config: written.path };
    tryCommands = tryLines({ commandLine, podId: DEMO_POD, account: config.accounts[0]?.name ?? 'demo' });
    const runtime = await startRuntime({ config, clock, log, commandLine });
    closers.push(() => runtime.stop());
    const unfollow = followDaemon(runtime.daemon.events, write);
    closers.push(async () => unfollow());

    for (const line of bannerLines({
      scenario: scenario.name,
      startMs: scenario.startMs,
      httpUrl: runtime.httpUrl,
      mailDir,
      database: config.database.path,
      logFile: options.logFile,
      simUrl: sim.restBaseUrl,
      apiKey: scenario.apiKey,
      stopsAfter: options.stopsAfter,
    }))
      write(line);
    for (const line of tryCommands) write(line);
    if (!options.signal.aborted) await once(options.signal, 'abort');
  } finally {
    // Last started, first stopped: the daemon before the mail sink it sends to and the API it reads.
    for (const close of closers.reverse()) await close();
  }
  write(`podwarden demo stopped: ${mails} message${mails === 1 ? '' : 's'} in ${mailDir}`);
  // Once more at the end, where the eye lands when the demo stops: they still work on what it left.
  for (const line of tryCommands) write(line);
  return { mails };
}

/** Only the files a previous demo wrote: a fresh database, so alerts fire again, and an empty inbox. */
function clearPreviousRun(dir: string, mailDir: string): void {
  mkdirSync(mailDir, { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dir, `podwarden.db${suffix}`), { force: true });
  for (const file of readdirSync(mailDir)) if (file.endsWith('.eml')) rmSync(join(mailDir, file));
}

/**
 * `host:0` becomes `host:<a free port>`: the emails' links (http.publicUrl) must name the port
 * before the server starts. The port is free now; nothing else on loopback races for it.
 */
async function withRealPort(listen: string): Promise<string> {
  const at = listen.lastIndexOf(':');
  const host = listen.slice(0, at);
  if (listen.slice(at + 1) !== '0') return listen;
  const probe = createServer();
  probe.listen(0, host);
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `${host}:${port}`;
}
