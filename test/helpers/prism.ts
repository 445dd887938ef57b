import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { packagePath } from '../../src/package-root.js';

export interface PrismOptions {
  /** `mock` answers from the document; `proxy` forwards to `upstream` and validates both ways. */
  mode: 'mock' | 'proxy';
  /** Required in proxy mode, e.g. `http://127.0.0.1:4567` (the simulator). */
  upstream?: string;
  /** Defaults to the repository copy of the RunPod REST v2 document. */
  document?: string;
  /** Answer violations with errors (Prism's `--errors`); default true. */
  errors?: boolean;
  /** Further Prism arguments, e.g. `['--dynamic', '--seed', '1']`. */
  args?: string[];
  /** How long to wait for Prism to listen; default 60 s. */
  startTimeoutMs?: number;
}

export interface PrismHandle {
  /** `http://127.0.0.1:<port>`; paths are the document's (`/v2/...`). */
  url: string;
  /** The tail of Prism's log, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const DEFAULT_DOCUMENT = packagePath('reference/runpod-rest-v2-openapi.json');
const OUTPUT_LIMIT = 64 * 1024;

/**
 * Starts `prism mock` or `prism proxy` (@stoplight/prism-cli) on a free loopback port and
 * resolves once it listens; `stop()` ends that process (and only it).
 */
export async function startPrism(options: PrismOptions): Promise<PrismHandle> {
  if (options.mode === 'proxy' && !options.upstream) throw new Error('startPrism: proxy mode needs an upstream URL');
  const port = await freePort();
  const document = options.document ?? DEFAULT_DOCUMENT;
  const positional = options.mode === 'mock' ? [document] : [document, options.upstream as string];
  const args = [
    options.mode,
    ...positional,
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    ...(options.errors === false ? [] : ['--errors']),
    ...(options.args ?? []),
  ];
  // Run Prism's CLI script with this Node, whatever `node` is on PATH.
  const cli = realpathSync(packagePath('node_modules/.bin/prism'));
  const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const handle: PrismHandle = {
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: () => stopChild(child, exited),
  };
  try {
    await waitUntilListening(child, () => output, options.startTimeoutMs ?? 60_000);
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

function waitUntilListening(child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const tail = () => output().slice(-4000);
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`prism did not start listening within ${timeoutMs}ms:\n${tail()}`));
    }, timeoutMs);
    const onData = () => {
      if (/Prism is listening on/.test(output())) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`prism exited before listening (code ${code}, signal ${signal}):\n${tail()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    // Listen after the appender registered in startPrism, so output() already holds the chunk.
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    onData();
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** A port the kernel just handed out, released for Prism to take. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
