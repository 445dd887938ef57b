import { existsSync, readdirSync } from 'node:fs';
import { packagePath } from '../package-root.js';
import { UsageError } from './exit.js';

const SCENARIO_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** A `--scenario` value: a path as given, or the name of a scenario bundled in config/scenarios/. */
export function resolveScenario(given: string): string {
  if (existsSync(given)) return given;
  const bundledDir = packagePath('config', 'scenarios');
  for (const extension of SCENARIO_EXTENSIONS) {
    const candidate = packagePath('config', 'scenarios', `${given}${extension}`);
    if (existsSync(candidate)) return candidate;
  }
  const bundled = existsSync(bundledDir)
    ? readdirSync(bundledDir)
        .filter((file) => SCENARIO_EXTENSIONS.some((extension) => file.endsWith(extension)))
        .map((file) => file.replace(/\.[^.]+$/, ''))
    : [];
  throw new UsageError(
    `--scenario: no file "${given}" and no bundled scenario of that name (bundled: ${bundled.join(', ') || 'none'})`,
  );
}

/** Resolves when the process is asked to stop (SIGINT or SIGTERM), with the signal's name. */
export function untilSignalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
