// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in plain strings is the config syntax under test.
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packagePath } from '../../src/package-root.js';
import { scratchDir } from '../config/support.js';
import { runCli } from '../helpers/cli.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());

const CANARY = 'rpa_CANARY_4d1f9e7b2c';
const EXAMPLE = packagePath('config/podwarden.example.yaml');

describe('podwarden check-config', () => {
  it('prints the effective configuration with secrets masked and exits 0', async () => {
    const result = await runCli(['check-config', '--config', EXAMPLE], { env: { RUNPOD_API_KEY: CANARY } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('# podwarden effective configuration (secrets masked)\n')).toBe(true);
    const printed = parse(result.stdout);
    expect(printed.accounts).toEqual([
      {
        name: 'main',
        apiKey: 'rpa_…2c',
        restBaseUrl: 'https://api.runpod.io/v2',
        graphqlBaseUrl: 'https://api.runpod.io/graphql',
      },
    ]);
    expect(printed.api.timeouts).toEqual({ connect: '10s', headers: '30s', body: '1m' });
    expect(printed.database.path).toBe(packagePath('config/data/podwarden.db'));
    expect(result.stdout).not.toContain(CANARY);
  });

  it('reads the file named by PODWARDEN_CONFIG and masks secrets read from files', async () => {
    scratch.write('secrets/token', 'bearer_CANARY_88aa11\n');
    const file = scratch.write(
      'env.yaml',
      `accounts:\n  - name: main\n    apiKey: ${CANARY}\nhttp:\n  bearerTokenFile: secrets/token\n`,
    );
    const result = await runCli(['check-config'], { env: { PODWARDEN_CONFIG: file } });
    expect(result.code).toBe(0);
    expect(parse(result.stdout).http).toEqual({
      listen: '0.0.0.0:9464',
      allowedHosts: [],
      trustedProxies: [],
      bearerToken: 'bear…11',
      linkExpiry: '1d',
    });
    expect(result.stdout + result.stderr).not.toContain(CANARY);
    expect(result.stdout + result.stderr).not.toContain('bearer_CANARY_88aa11');
  });

  it('prints every problem on stderr, one per line, and exits 2, never showing a secret', async () => {
    const file = scratch.write(
      'bad.yaml',
      [
        'accounts:',
        '  - name: main',
        '    apiKey: ${RUNPOD_API_KEY}',
        // A key pasted into the wrong field: its value is echoed in the message, so it must be redacted.
        '    restBaseUrl: ${RUNPOD_API_KEY}',
        'api:',
        '  timeouts:',
        '    connect: 10',
        'collectors:',
        '  pods:',
        '    schedule: "* * *"',
        'log:',
        '  level: chatty',
        '',
      ].join('\n'),
    );
    const result = await runCli(['check-config', '--config', file], { env: { RUNPOD_API_KEY: CANARY } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'accounts[0].restBaseUrl: invalid URL "[REDACTED]" (expected an http:// or https:// URL)',
      'api.timeouts.connect: expected a duration such as "30s", got number',
      'collectors.pods.schedule: invalid cron expression "* * *": expected 5 fields (minute hour day-of-month month weekday, e.g. "*/5 * * * *") or 6 with seconds first, got 3',
      'log.level: expected one of trace, debug, info, warn, error, fatal, got "chatty"',
      '',
    ]);
    expect(result.stderr).not.toContain(CANARY);
  });

  it('says how to give a configuration when none is given, and exits 2', async () => {
    const result = await runCli(['check-config']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('no configuration: pass --config PATH or set PODWARDEN_CONFIG\n');
  });

  it('reports a YAML syntax error with its line', async () => {
    const file = scratch.write('syntax.yaml', 'accounts:\n  - name: main\n    apiKey: "unterminated\n');
    const result = await runCli(['check-config', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`${file}: invalid YAML at line 4, column 1: Missing closing "quote\n`);
  });

  it('explains itself with --help', async () => {
    const result = await runCli(['check-config', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: podwarden check-config [options]');
    expect(result.stdout).toContain('--config <path>');
    expect(result.stdout).toContain('exits 2');
  });
});
