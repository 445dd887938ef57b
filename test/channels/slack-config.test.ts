import { afterAll, describe, expect, it } from 'vitest';
import { configAsYaml } from '../../src/config/display.js';
import { parseConfig } from '../../src/config/load.js';
import { redact } from '../../src/redact.js';
import { problemsOf, scratchDir } from '../config/support.js';

/**
 * `slack`: named destinations, the first the default; the webhook URL is a secret (inline, from
 * the environment or a file), masked wherever the configuration is shown and never in an error.
 */
const ACCOUNTS = [{ name: 'main', apiKey: 'main-key-0001' }];
const URL_A = 'https://hooks.slack.com/services/T0AAAA/B0AAAA/aaaaaaaaaaaaaaaaaaaaaaaa';
const URL_B = 'https://hooks.slack.com/services/T0BBBB/B0BBBB/bbbbbbbbbbbbbbbbbbbbbbbb';
const scratch = scratchDir();
afterAll(() => scratch.remove());

const parse = (slack: unknown, env: NodeJS.ProcessEnv = {}) =>
  parseConfig({ accounts: ACCOUNTS, slack }, { env, baseDir: scratch.dir });

describe('the slack section', () => {
  it('reads destinations inline, from the environment and from a file, with defaults for the rest', () => {
    scratch.write('slack-b', `${URL_B}\n`);
    const config = parse(
      {
        destinations: [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation
          { name: 'ml-team', webhookUrl: '${SLACK_ML}' },
          { name: 'finance', webhookUrlFile: 'slack-b' },
        ],
      },
      { SLACK_ML: URL_A },
    );
    expect(config.slack).toEqual({
      destinations: [
        { name: 'ml-team', webhookUrl: URL_A },
        { name: 'finance', webhookUrl: URL_B },
      ],
      timeoutMs: 10_000,
      giveUpAfterMs: 24 * 3_600_000,
    });
    // Shown masked, and masked in any line that would carry it.
    const yaml = configAsYaml(config);
    expect(yaml).not.toContain('B0AAAA');
    expect(yaml).not.toContain('B0BBBB');
    expect(redact(`POST ${URL_A} failed`)).not.toContain('B0AAAA');
  });

  it('is absent unless set: Slack is then no configured channel', () => {
    expect(parseConfig({ accounts: ACCOUNTS }, { env: {}, baseDir: '/' }).slack).toBeUndefined();
  });

  it('names each problem by its path, and never the URL it refuses', () => {
    const problems = problemsOf(() =>
      parse({
        destinations: [
          { name: 'ML Team', webhookUrl: URL_A },
          { name: 'ops' },
          { name: 'ops', webhookUrl: 'hooks.slack.com/T0SECRET0/B0SECRET0/cccccccccccccccccccccccc' },
          { name: 'both', webhookUrl: URL_B, webhookUrlFile: 'slack-b' },
        ],
        timeout: 'soon',
      }),
    );
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'slack.destinations[0].name: invalid destination name "ML Team" (expected lowercase letters, digits, ".", "_" and "-")',
      'slack.destinations[1].webhookUrl: required (or set webhookUrlFile)',
      'slack.destinations[2].webhookUrl: not an http(s) URL',
      'slack.destinations[3].webhookUrlFile: set webhookUrl or webhookUrlFile, not both',
      'slack.destinations[2].name: duplicate destination name "ops" (also destinations[1].name)',
      expect.stringMatching(/^slack\.timeout: /),
    ]);
    expect(JSON.stringify(problems)).not.toContain('T0SECRET0');
    expect(problemsOf(() => parse({ destinations: [] })).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'slack.destinations: at least one destination is required',
    ]);
  });
});
