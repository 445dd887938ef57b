/**
 * The simulator in a process of its own, so a bench measures the daemon's side alone: its CPU,
 * its event loop and its memory, as against a real RunPod whose work happens elsewhere. The
 * parent talks to it over the fork IPC channel: start, request counts and log, close.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { packagePath } from '../src/package-root.js';
import { ScaledClock } from '../src/simulator/scaled-clock.js';
import type { ScenarioFault } from '../src/simulator/scenario.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimulator } from '../src/simulator/server.js';

export interface SimProcessOptions {
  /** A scenario file under config/scenarios/, e.g. `large.json`. */
  scenarioFile: string;
  /** What the simulator's clock reads when it starts (the daemon's clock must agree). */
  startMs: number;
  faults: ScenarioFault[];
}

interface RequestEntry {
  seq: number;
  method: string;
  path: string;
}

type Message =
  | { type: 'started'; restBaseUrl: string; graphqlUrl: string; apiKey: string }
  | { type: 'log'; total: number; lastSeq: number; entries: RequestEntry[] };

export interface SimProcess {
  restBaseUrl: string;
  graphqlUrl: string;
  apiKey: string;
  /** Requests answered so far, and those after `afterSeq`. */
  requestLog(afterSeq?: number): Promise<{ total: number; lastSeq: number; entries: RequestEntry[] }>;
  close(): Promise<void>;
}

export async function startSimProcess(options: SimProcessOptions): Promise<SimProcess> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<Message>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Message));
      child.once('exit', (code) => reject(new Error(`simulator process exited (${code})`)));
    });
  const started = next();
  child.send({ type: 'start', options });
  const ready = await started;
  if (ready.type !== 'started') throw new Error(`simulator process: unexpected ${ready.type}`);
  return {
    restBaseUrl: ready.restBaseUrl,
    graphqlUrl: ready.graphqlUrl,
    apiKey: ready.apiKey,
    async requestLog(afterSeq = Number.MAX_SAFE_INTEGER) {
      const answer = next();
      child.send({ type: 'log', afterSeq });
      const log = await answer;
      if (log.type !== 'log') throw new Error(`simulator process: unexpected ${log.type}`);
      return log;
    },
    close: () => stop(child),
  };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send({ type: 'close' });
  });
}

if (process.argv.includes('--child')) {
  // A parent that dies (a bench piped into `head`) must not leave a simulator listening behind it.
  process.once('disconnect', () => process.exit(0));
  let close: () => Promise<void> = async () => {};
  process.on('message', async (message: { type: string; options?: SimProcessOptions; afterSeq?: number }) => {
    if (message.type === 'start' && message.options) {
      const { scenarioFile, startMs, faults } = message.options;
      const base = loadScenario(packagePath(`config/scenarios/${scenarioFile}`));
      const scenario = { ...base, rateLimit: undefined, faults };
      const sim = await startSimulator({ scenario, clock: new ScaledClock({ startMs, speed: 1 }) });
      close = () => sim.close();
      process.send?.({
        type: 'started',
        restBaseUrl: sim.restBaseUrl,
        graphqlUrl: sim.graphqlUrl,
        apiKey: scenario.apiKey,
      });
      process.on('message', (request: { type: string; afterSeq?: number }) => {
        if (request.type !== 'log') return;
        const entries = sim.requestLog
          .entries(request.afterSeq)
          .map(({ seq, method, path }) => ({ seq, method, path }));
        process.send?.({
          type: 'log',
          total: sim.requestLog.counts().total,
          lastSeq: sim.requestLog.lastSeq(),
          entries,
        });
      });
    } else if (message.type === 'close') {
      await close();
      process.disconnect();
    }
  });
}
