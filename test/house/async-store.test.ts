import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floatingPromises, programOf } from '../helpers/floating-promises.js';
import { syncStoreUses } from '../helpers/sync-store.js';

const root = resolve(import.meta.dirname, '../..');
const src = `${join(root, 'src')}/`;
const store = `${join(root, 'src', 'db')}/`;
const underSrc = (file: string) => file.startsWith(src);
const ours = (file: string) => file.startsWith(`${root}/`) && !file.includes('/node_modules/');

// One program (the type checker over src/, test/ and bench/) for both checks: building it is most of their time.
let program: ts.Program;
beforeAll(() => {
  program = programOf(join(root, 'tsconfig.json'));
}, 600_000);

describe('the store, src/db', () => {
  it('is async to every caller: no function taking the connection returns without a promise', () => {
    const found = syncStoreUses(program, ours, (file) => file.startsWith(store)).map(
      (f) => `${f.file.slice(root.length + 1)}:${f.line}: ${f.name}`,
    );
    expect(found).toEqual([]);
  });
});

describe('promises under src/', () => {
  it('are all awaited, returned, void-ed or given a rejection handler', () => {
    const found = floatingPromises(program, underSrc).map(
      (f) => `${f.file.slice(root.length + 1)}:${f.line}: ${f.why}: ${f.text}`,
    );
    expect(found).toEqual([]);
  });

  describe('the check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'floating-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'store.ts'), 'export async function write(): Promise<number> { return 1; }\n');
    writeFileSync(
      join(dir, 'caller.ts'),
      [
        "import { write } from './store.js';",
        'export async function caller(on: (f: () => void) => void): Promise<number> {',
        '  write();', // floats
        '  on(() => write());', // floats: the handler's caller ignores what it returns
        '  on(async () => { await write(); });', // floats: an async handler nobody awaits
        '  await write();',
        '  void write();',
        '  write().catch(() => {});',
        '  const later = write();',
        '  if (write() === undefined || !write()) return 0;', // tested before it settles, twice
        '  const known = (await write()) === undefined;',
        '  return (await later) + (await write()) + (known ? 1 : 0);',
        '}',
        '',
      ].join('\n'),
    );
    const program = ts.createProgram({
      rootNames: [join(dir, 'caller.ts')],
      options: { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
    });

    it('finds a call whose promise is dropped or tested, and a promise handed to a caller that drops it', () => {
      const found = floatingPromises(program, (file) => file.startsWith(dir)).map((f) => [f.line, f.why]);
      expect(found).toEqual([
        [3, 'not awaited'],
        [4, 'returned to a caller that ignores it'],
        [5, 'returned to a caller that ignores it'],
        [10, 'tested, not awaited'],
        [10, 'tested, not awaited'],
      ]);
    });
  });
});

describe('the store check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sync-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'open.ts'), 'export interface Database { run(sql: string): number }\n');
  writeFileSync(
    join(dir, 'store.ts'),
    [
      "import type { Database } from './open.js';",
      'export function count(database: Database): number { return database.run("x"); }',
      'export async function write(database: Database): Promise<number> { return database.run("y"); }',
      'export function keyOf(account: string): string { return account; }',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'caller.ts'),
    [
      "import { count, keyOf, write } from './store.js';",
      "import type { Database } from './open.js';",
      'export async function caller(database: Database): Promise<string> {',
      '  return keyOf(String(count(database) + (await write(database))));',
      '}',
      '',
    ].join('\n'),
  );
  const checked = ts.createProgram({
    rootNames: [join(dir, 'caller.ts')],
    options: { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
  });

  it('finds a caller importing a store function that takes the connection and returns no promise', () => {
    const isStore = (file: string) => file === join(dir, 'store.ts') || file === join(dir, 'open.ts');
    const found = syncStoreUses(checked, (file) => file.startsWith(dir), isStore).map((f) => [f.line, f.name]);
    expect(found).toEqual([[1, 'count']]);
  });
});
