import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { floatingPromises, programOf } from '../helpers/floating-promises.js';

const root = resolve(import.meta.dirname, '../..');
const src = `${join(root, 'src')}/`;

describe('promises under src/', () => {
  it('are all awaited, returned, void-ed or given a rejection handler', () => {
    const underSrc = (file: string) => file.startsWith(src);
    const found = floatingPromises(programOf(join(root, 'tsconfig.json'), underSrc), underSrc).map(
      (f) => `${f.file.slice(root.length + 1)}:${f.line}: ${f.why}: ${f.text}`,
    );
    expect(found).toEqual([]);
  }, 600_000);

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
        '  return (await later) + (await write());',
        '}',
        '',
      ].join('\n'),
    );
    const program = ts.createProgram({
      rootNames: [join(dir, 'caller.ts')],
      options: { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext },
    });

    it('finds a call whose promise is dropped, and a promise handed to a caller that drops it', () => {
      const found = floatingPromises(program, (file) => file.startsWith(dir)).map((f) => [f.line, f.why]);
      expect(found).toEqual([
        [3, 'not awaited'],
        [4, 'returned to a caller that ignores it'],
        [5, 'returned to a caller that ignores it'],
      ]);
    });
  });
});
