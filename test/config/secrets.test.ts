// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in plain strings is the config syntax under test.
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configAsYaml, maskedConfig } from '../../src/config/display.js';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { redact } from '../../src/redact.js';
import { scratchDir } from './support.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());

function keyFrom(fileText: string): string {
  scratch.write('secrets/key', fileText);
  const file = scratch.write('podwarden.yaml', 'accounts:\n  - name: main\n    apiKeyFile: secrets/key\n');
  return loadConfig({ path: file, env: {} }).accounts[0]?.apiKey ?? '';
}

describe('secret files', () => {
  it('reads the file relative to the config file and drops exactly one trailing newline', () => {
    expect(keyFrom('rpa_file_key_0001\n')).toBe('rpa_file_key_0001');
    expect(keyFrom('rpa_file_key_0002\r\n')).toBe('rpa_file_key_0002');
    expect(keyFrom('rpa_file_key_0003')).toBe('rpa_file_key_0003');
    expect(keyFrom('rpa_file_key_0004\n\n')).toBe('rpa_file_key_0004\n');
  });

  it('takes the file path from the environment too', () => {
    const key = scratch.write('run/token', 'bearer-from-file-0001\n');
    const config = parseConfig(
      { accounts: [{ name: 'main', apiKey: 'rpa_inline_0001' }], http: { bearerTokenFile: '${SECRETS}/token' } },
      { env: { SECRETS: key.replace(/\/token$/, '') }, baseDir: '/' },
    );
    expect(config.http).toEqual({
      listen: '0.0.0.0:9464',
      allowedHosts: [],
      trustedProxies: [],
      bearerToken: 'bearer-from-file-0001',
      linkExpiryMs: 24 * 3_600_000,
    });
  });

  it('registers every secret it reads, inline or from a file, so logs and errors redact it', () => {
    scratch.write('canary-key', 'rpa_CANARY_FROM_FILE_7f3a\n');
    const file = scratch.write(
      'canary.yaml',
      'accounts:\n  - name: a\n    apiKeyFile: canary-key\n  - name: b\n    apiKey: rpa_CANARY_INLINE_91bc\nhttp:\n  bearerToken: CANARY_BEARER_55de\n',
    );
    loadConfig({ path: file, env: {} });
    expect(redact('a rpa_CANARY_FROM_FILE_7f3a b rpa_CANARY_INLINE_91bc c CANARY_BEARER_55de')).toBe(
      'a [REDACTED] b [REDACTED] c [REDACTED]',
    );
  });
});

describe('masking', () => {
  const config = parseConfig(
    {
      accounts: [{ name: 'main', apiKey: 'rpa_MASKME_0123456789' }],
      http: { bearerToken: 'bearer_MASKME_abcdef' },
      api: { retries: { baseDelay: '1500ms' } },
    },
    { env: {}, baseDir: '/srv' },
  );

  it('masks every secret and nothing else, leaving the configuration itself intact', () => {
    const masked = maskedConfig(config) as typeof config;
    expect(masked.accounts[0]?.apiKey).toBe('rpa_…89');
    expect(masked.http.bearerToken).toBe('bear…ef');
    expect(masked.accounts[0]?.name).toBe('main');
    expect(masked.database).toEqual(config.database);
    expect(config.accounts[0]?.apiKey).toBe('rpa_MASKME_0123456789');
  });

  it('prints durations as written and yields YAML that parses back to the same configuration', () => {
    const yaml = configAsYaml(config);
    expect(yaml).not.toContain('MASKME_0123456789');
    expect(yaml).not.toContain('MASKME_abcdef');
    expect(yaml).toContain('baseDelay: 1s500ms');
    expect(yaml).toContain('rawSamples: 2d');
    const again = parseConfig(parse(yaml), { env: {}, baseDir: '/elsewhere' });
    expect(again).toEqual(maskedConfig(config));
  });
});
