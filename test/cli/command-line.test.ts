import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandLineFor, thisProgram } from '../../src/cli/command-line.js';

const dir = mkdtempSync(join(tmpdir(), 'podwarden-command-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the command line mails and pages quote', () => {
  const main = join(dir, 'app', 'dist', 'main.js');
  mkdirSync(join(dir, 'app', 'dist'), { recursive: true });
  writeFileSync(main, '');

  it('is `podwarden` when the podwarden on the PATH is this very program (an npm bin link)', () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(main, join(bin, 'podwarden'));
    expect(thisProgram(['node', join(bin, 'podwarden')], [], `/nowhere:${bin}`)).toEqual(['podwarden']);
    expect(thisProgram(['node', main], [], bin)).toEqual(['podwarden']);
  });

  it('is node, its flags and the absolute script when no podwarden on the PATH is this program', () => {
    const other = join(dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'podwarden'), '');
    expect(thisProgram(['node', main], ['--import', 'tsx'], other)).toEqual(['node', '--import', 'tsx', main]);
    expect(thisProgram(['node', main], [], '')).toEqual(['node', main]);
  });

  it('names the configuration file by its absolute path', () => {
    expect(commandLineFor('podwarden.yaml').config).toBe(join(process.cwd(), 'podwarden.yaml'));
  });
});
