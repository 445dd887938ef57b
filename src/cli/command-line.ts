import { realpathSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import type { CommandLine } from '../messages/commands.js';

/**
 * The words that run this very podwarden, as a person pastes them into another terminal:
 * `podwarden` when the `podwarden` found on the PATH is this program, else `node`, its flags
 * (tsx's loader under `npm run dev`) and the absolute path of the script (dist/main.js).
 */
export function thisProgram(
  argv: readonly string[] = process.argv,
  execArgv: readonly string[] = process.execArgv,
  path: string = process.env.PATH ?? '',
): string[] {
  const script = argv[1];
  if (script === undefined) return ['podwarden'];
  const real = realPath(script);
  const onPath = path
    .split(delimiter)
    .some((dir) => dir !== '' && real !== undefined && realPath(join(dir, 'podwarden')) === real);
  return onPath ? ['podwarden'] : ['node', ...execArgv, resolve(script)];
}

/** How a person runs this podwarden on the configuration file `config`. */
export function commandLineFor(config: string): CommandLine {
  return { program: thisProgram(), config: resolve(config) };
}

function realPath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
