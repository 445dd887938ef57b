import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWithFilledDatabase, corruptPage } from '../db/support.js';
import { runCli } from '../helpers/cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-dbcheck-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const configFor = (name: string) => configWithFilledDatabase(dir, name);

describe('podwarden db check', () => {
  it('says ok for an intact database and exits 0', async () => {
    const { configPath, dbPath } = configFor('intact');
    const result = await runCli(['db', 'check', '--config', configPath]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^database ${dbPath}: ok \\(integrity_check, schema version \\d+\\)\\n$`));
  });

  it('lists the damage of a corrupt page and exits 1; run refuses the file with the same advice', async () => {
    const { configPath, dbPath } = configFor('corrupt');
    corruptPage(dbPath);
    const check = await runCli(['db', 'check', '--config', configPath]);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`podwarden: open database ${dbPath}: the file is damaged (`);
    expect(check.stderr).toContain(`sqlite3 ${dbPath} .recover | sqlite3 ${dbPath}.recovered`);
    const run = await runCli(['run', '--config', configPath]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`podwarden: open database ${dbPath}: the file is damaged (`);
    expect(run.stderr).toContain('podwarden will not run on it');
  }, 60_000);
});
