import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding package.json, found from this file's location (src/ in development, dist/
 * when built), so migrations and bundled scenarios resolve whatever the working directory.
 */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export function packagePath(...parts: string[]): string {
  return join(packageRoot, ...parts);
}

export const version: string = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string })
  .version;
