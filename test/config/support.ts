import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ConfigError, type Problem } from '../../src/config/load.js';

/** A scratch folder for config files and secret files; `remove()` in afterAll. */
export function scratchDir(): { dir: string; write(name: string, text: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'podwarden-config-'));
  return {
    dir,
    write(name, text) {
      const path = join(dir, name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs `load`, which must throw a ConfigError, and returns its problems after checking the error's shape. */
export function problemsOf(load: () => unknown): Problem[] {
  let caught: unknown;
  try {
    load();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  const error = caught as ConfigError;
  expect(error.exitCode).toBe(2);
  expect(error.message).toBe(error.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('\n'));
  return error.problems;
}
