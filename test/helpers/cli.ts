import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { packagePath } from '../../src/package-root.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the podwarden CLI as a real process (the TypeScript sources through tsx), so tests see
 * exactly what a user sees: output streams and exit code.
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts the CLI without waiting for it to end, for long-running commands (`sim`, the daemon):
 * the test reads its output as it comes and signals it. The caller must end the process.
 */
export function spawnCli(
  args: string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string;
    /** Run under `ulimit -f` (KiB): writes past this size in any file fail, as on a full disk. */
    fileSizeLimitKiB?: number;
  } = {},
): ChildProcessByStdio<null, Readable, Readable> {
  // tsx by absolute path, so the CLI also starts from a working directory outside the repo.
  const tsx = pathToFileURL(packagePath('node_modules/tsx/dist/loader.mjs')).href;
  const command = [process.execPath, '--import', tsx, packagePath('src/main.ts'), ...args];
  // bash's ulimit -f counts 1024-byte blocks; exec keeps the signals going to the CLI itself.
  const [file, ...argv] =
    options.fileSizeLimitKiB === undefined
      ? command
      : ['bash', '-c', 'ulimit -f "$0" && exec "$@"', String(options.fileSizeLimitKiB), ...command];
  return spawn(file as string, argv, {
    cwd: options.cwd ?? packagePath(),
    env: definedOnly({ ...process.env, PODWARDEN_CONFIG: undefined, NO_COLOR: '1', ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Child processes would see `undefined` as the string "undefined"; drop such keys instead. */
function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
