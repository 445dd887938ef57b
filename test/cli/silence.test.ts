import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
let configPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'podwarden-silence-'));
  configPath = join(dir, 'podwarden.yaml');
  writeFileSync(configPath, 'accounts:\n  - name: main\n    apiKey: test-key-123\ndatabase:\n  path: ./podwarden.db\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('podwarden silence', () => {
  it('adds, lists and expires a silence', async () => {
    const added = await runCli([
      'silence',
      'add',
      '--config',
      configPath,
      '--match',
      'budget=gpu-month',
      '--match',
      'figure=~live|actual',
      '--for',
      '2h',
      '--comment',
      'known overrun, approved',
      '--author',
      'alice',
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const id = added.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const listed = await runCli(['silence', 'list', '--config', configPath]);
    expect(listed.code).toBe(0);
    const [header, row] = listed.stdout.trim().split('\n');
    expect(header).toBe('ID\tSTATE\tENDS\tMATCHERS\tCREATED BY\tCOMMENT');
    expect(row?.split('\t')).toEqual([
      id,
      'active',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      'budget=gpu-month,figure=~live|actual',
      'alice',
      'known overrun, approved',
    ]);

    const expired = await runCli(['silence', 'expire', id, '--config', configPath]);
    expect(expired.stdout).toBe(`expired ${id}\n`);
    expect((await runCli(['silence', 'list', '--config', configPath])).stdout.trim().split('\n')).toHaveLength(1);
    const all = await runCli(['silence', 'list', '--all', '--config', configPath]);
    expect(all.stdout).toContain(`${id}\texpired\t`);
    // Expiring again changes nothing.
    expect((await runCli(['silence', 'expire', id, '--config', configPath])).code).toBe(0);
  }, 60_000);

  it('refuses bad matchers, durations and unknown ids with exit 2', async () => {
    const bad = await runCli([
      'silence',
      'add',
      '--config',
      configPath,
      '--match',
      'budget',
      '--for',
      '2h',
      '--comment',
      'x',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--match: matcher "budget": expected name=value');
    const duration = await runCli([
      'silence',
      'add',
      '--config',
      configPath,
      '--match',
      'a=b',
      '--for',
      'soon',
      '--comment',
      'x',
    ]);
    expect(duration.code).toBe(2);
    expect(duration.stderr).toContain('--for:');
    // commander's own usage errors in a subcommand: a missing option, an unknown one.
    const missing = await runCli(['silence', 'add', '--config', configPath, '--match', 'a=b', '--for', '2h']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--comment <text>' not specified");
    const unknownOption = await runCli(['silence', 'list', '--bogus', '--config', configPath]);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("unknown option '--bogus'");
    const unknown = await runCli(['silence', 'expire', 'no-such-id', '--config', configPath]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('silence no-such-id: no such silence');
  }, 60_000);

  it('refuses a rule or account that does not exist, naming those that do, with exit 2', async () => {
    const typo = await runCli([
      'silence',
      'add',
      '--config',
      configPath,
      '--match',
      'rule=wsate',
      '--for',
      '2h',
      '--comment',
      'x',
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'podwarden: --match: matcher "rule=wsate": no rule wsate (did you mean waste?); rules: budget, idle, enforce, capacity, waste, health\n',
    );
    const account = await runCli([
      'silence',
      'add',
      '--config',
      configPath,
      '--match',
      'account!=prod',
      '--for',
      '2h',
      '--comment',
      'x',
    ]);
    expect(account.code).toBe(2);
    expect(account.stderr).toBe(
      'podwarden: --match: matcher "account!=prod": no account prod; configured accounts: main\n',
    );
    expect((await runCli(['silence', 'list', '--all', '--config', configPath])).stdout.trim().split('\n')).toHaveLength(
      1,
    );
  }, 90_000);
});
