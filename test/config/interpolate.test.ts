// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in plain strings is the config syntax under test.
import { describe, expect, it } from 'vitest';
import { interpolateEnv } from '../../src/config/interpolate.js';
import { parseConfig } from '../../src/config/load.js';
import { problemsOf } from './support.js';

const env = { KEY: 'rpa_env_key_0001', HOST: 'sim.local', EMPTY: '', NESTED: '${KEY}' };

function one(text: string, vars: NodeJS.ProcessEnv = env) {
  return interpolateEnv({ value: text }, vars);
}

describe('${VAR} interpolation', () => {
  it('replaces references anywhere in a string, several per string', () => {
    expect(one('http://${HOST}:8080/${HOST}/v2').value).toEqual({ value: 'http://sim.local:8080/sim.local/v2' });
  });

  it('uses the default when the variable is unset or empty, and the value otherwise', () => {
    expect(one('${MISSING:-fallback}').value).toEqual({ value: 'fallback' });
    expect(one('${EMPTY:-fallback}').value).toEqual({ value: 'fallback' });
    expect(one('${HOST:-fallback}').value).toEqual({ value: 'sim.local' });
    expect(one('${MISSING:-}').value).toEqual({ value: '' });
  });

  it('keeps a variable set to the empty string without a default', () => {
    expect(one('[${EMPTY}]')).toEqual({ value: { value: '[]' }, problems: [] });
  });

  it('writes $${ as a literal ${ and leaves other dollars alone', () => {
    expect(one('$${HOST} costs $5 $').value).toEqual({ value: '${HOST} costs $5 $' });
  });

  it('does not interpolate a substituted value again', () => {
    expect(one('${NESTED}').value).toEqual({ value: '${KEY}' });
  });

  it('walks lists and nested mappings, and leaves keys and non-strings alone', () => {
    const raw = { list: ['${HOST}', 3, true, null], nested: { '${HOST}': '${KEY}' } };
    expect(interpolateEnv(raw, env)).toEqual({
      value: { list: ['sim.local', 3, true, null], nested: { '${HOST}': 'rpa_env_key_0001' } },
      problems: [],
    });
  });

  it('reports every unset variable at its own path', () => {
    const raw = { accounts: [{ apiKey: '${A_UNSET}' }, { apiKey: '${B_UNSET}-${C_UNSET}' }] };
    expect(interpolateEnv(raw, {}).problems).toEqual([
      { path: 'accounts[0].apiKey', message: 'environment variable A_UNSET is not set' },
      { path: 'accounts[1].apiKey', message: 'environment variable B_UNSET is not set' },
      { path: 'accounts[1].apiKey', message: 'environment variable C_UNSET is not set' },
    ]);
  });

  it('fills a whole configuration from the environment', () => {
    const config = parseConfig(
      {
        accounts: [{ name: 'main', apiKey: '${KEY}', restBaseUrl: 'http://${HOST}:${PORT:-9000}/v2' }],
        log: { level: '${LOG_LEVEL:-debug}' },
      },
      { env, baseDir: '/etc/podwarden' },
    );
    expect(config.accounts[0]).toMatchObject({ apiKey: 'rpa_env_key_0001', restBaseUrl: 'http://sim.local:9000/v2' });
    expect(config.log.level).toBe('debug');
  });

  it('reports only the unset variable, not the empty value it leaves behind', () => {
    const raw = { accounts: [{ name: 'main', apiKey: 'rpa_env_key_0001', restBaseUrl: '${REST_URL}' }] };
    expect(problemsOf(() => parseConfig(raw, { env: {}, baseDir: '/' }))).toEqual([
      { path: 'accounts[0].restBaseUrl', message: 'environment variable REST_URL is not set' },
    ]);
  });

  it('yields strings, so a number field cannot be filled from the environment', () => {
    const raw = { accounts: [{ name: 'main', apiKey: 'rpa_env_key_0001' }], api: { concurrency: '${CONCURRENCY}' } };
    expect(problemsOf(() => parseConfig(raw, { env: { CONCURRENCY: '8' }, baseDir: '/' }))).toEqual([
      { path: 'api.concurrency', message: 'expected a number, got string' },
    ]);
  });
});
