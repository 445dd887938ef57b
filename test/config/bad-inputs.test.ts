// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in plain strings is the config syntax under test.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, type Problem } from '../../src/config/load.js';
import { problemsOf, scratchDir } from './support.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());
scratch.write('secret.txt', 'rpa_from_file_0001\n');
scratch.write('empty.txt', '\n');
mkdirSync(join(scratch.dir, 'folder'));

const ACCOUNT = 'accounts:\n  - name: main\n    apiKey: rpa_inline_key_0001\n';

/** [what is wrong, the YAML file, every problem expected (<dir> and <file> stand for the scratch folder and the file)] */
const cases: Array<[string, string, Array<[string, string]>]> = [
  ['missing accounts', 'log:\n  level: info\n', [['accounts', 'required']]],
  ['empty accounts', 'accounts: []\n', [['accounts', 'at least one account is required']]],
  ['accounts not a list', 'accounts:\n  name: main\n', [['accounts', 'expected a list, got mapping']]],
  ['account not a mapping', 'accounts:\n  - main\n', [['accounts[0]', 'expected a mapping, got string']]],
  ['missing account name', 'accounts:\n  - apiKey: rpa_inline_key_0001\n', [['accounts[0].name', 'required']]],
  ['missing api key', 'accounts:\n  - name: main\n', [['accounts[0].apiKey', 'required (or set apiKeyFile)']]],
  [
    'both apiKey and apiKeyFile',
    `${ACCOUNT}    apiKeyFile: secret.txt\n`,
    [['accounts[0].apiKeyFile', 'set apiKey or apiKeyFile, not both']],
  ],
  ['empty api key', 'accounts:\n  - name: main\n    apiKey: ""\n', [['accounts[0].apiKey', 'must not be empty']]],
  [
    'api key of the wrong type',
    'accounts:\n  - name: main\n    apiKey: 12345\n',
    [['accounts[0].apiKey', 'expected a string, got number']],
  ],
  [
    'account name with capitals',
    'accounts:\n  - name: Main\n    apiKey: rpa_inline_key_0001\n',
    [
      [
        'accounts[0].name',
        'invalid account name "Main" (expected lowercase letters, digits, "_" and "-", starting with a letter or digit)',
      ],
    ],
  ],
  [
    'duplicate account names',
    `${ACCOUNT}  - name: other\n    apiKey: rpa_inline_key_0002\n  - name: main\n    apiKey: rpa_inline_key_0003\n`,
    [['accounts[2].name', 'duplicate account name "main" (also accounts[0].name)']],
  ],
  [
    'budget naming an account that is not configured',
    `${ACCOUNT}budgets:\n  - name: gpu\n    account: mian\n    amount: 100\n`,
    [['budgets[0].account', 'unknown account "mian" (configured: main)']],
  ],
  [
    'capacity watch naming an account that is not configured',
    `${ACCOUNT}capacity:\n  watch:\n    - gpuTypeId: NVIDIA H200\n      account: prod\n`,
    [['capacity.watch[0].account', 'unknown account "prod" (configured: main)']],
  ],
  ['unknown top-level section', `${ACCOUNT}budget:\n  monthly: 100\n`, [['budget', 'unknown field']]],
  [
    'misspelt account field',
    'accounts:\n  - name: main\n    apikey: rpa_inline_key_0001\n',
    [
      ['accounts[0].apikey', 'unknown field'],
      ['accounts[0].apiKey', 'required (or set apiKeyFile)'],
    ],
  ],
  ['unknown field at depth 3', `${ACCOUNT}api:\n  timeouts:\n    read: 5s\n`, [['api.timeouts.read', 'unknown field']]],
  ['unknown collector', `${ACCOUNT}collectors:\n  gpus:\n    enabled: true\n`, [['collectors.gpus', 'unknown field']]],
  [
    'unknown collector field',
    `${ACCOUNT}collectors:\n  pods:\n    interval: 1m\n`,
    [['collectors.pods.interval', 'unknown field']],
  ],
  [
    'URL without a scheme',
    `${ACCOUNT}api:\n  restBaseUrl: api.runpod.io/v2\n`,
    [['api.restBaseUrl', 'invalid URL "api.runpod.io/v2" (expected an http:// or https:// URL)']],
  ],
  [
    'account URL with another scheme',
    `${ACCOUNT}    graphqlBaseUrl: ftp://api.runpod.io/graphql\n`,
    [['accounts[0].graphqlBaseUrl', 'invalid URL "ftp://api.runpod.io/graphql" (expected an http:// or https:// URL)']],
  ],
  [
    'number written as a word',
    `${ACCOUNT}api:\n  concurrency: four\n`,
    [['api.concurrency', 'expected a number, got string']],
  ],
  [
    'fractional count',
    `${ACCOUNT}api:\n  retries:\n    max: 1.5\n`,
    [['api.retries.max', 'expected an integer, got 1.5']],
  ],
  ['count below its minimum', `${ACCOUNT}api:\n  concurrency: 0\n`, [['api.concurrency', 'must be at least 1']]],
  ['count above its maximum', `${ACCOUNT}api:\n  retries:\n    max: 11\n`, [['api.retries.max', 'must be at most 10']]],
  [
    'unknown GraphQL auth',
    `${ACCOUNT}api:\n  graphqlAuth: cookie\n`,
    [['api.graphqlAuth', 'expected one of header, query, got "cookie"']],
  ],
  [
    'yes is not a boolean',
    `${ACCOUNT}api:\n  graphql:\n    enabled: yes\n`,
    [['api.graphql.enabled', 'expected a boolean (true or false), got string']],
  ],
  [
    'bad duration',
    `${ACCOUNT}api:\n  timeouts:\n    connect: 5x\n`,
    [['api.timeouts.connect', 'invalid duration "5x" (expected e.g. 90s, 30m, 6h, 2d, 1h30m)']],
  ],
  [
    'duration without a unit',
    `${ACCOUNT}api:\n  timeouts:\n    body: 60\n`,
    [['api.timeouts.body', 'expected a duration such as "30s", got number']],
  ],
  [
    'zero duration',
    `${ACCOUNT}database:\n  retention:\n    rawSamples: 0s\n`,
    [['database.retention.rawSamples', 'duration must be greater than 0, got "0s"']],
  ],
  [
    'negative duration',
    `${ACCOUNT}collectors:\n  billing:\n    backfill: -30d\n`,
    [['collectors.billing.backfill', 'duration must be greater than 0, got "-30d"']],
  ],
  [
    'cron in words',
    `${ACCOUNT}collectors:\n  pods:\n    schedule: every minute\n`,
    [
      [
        'collectors.pods.schedule',
        'invalid cron expression "every minute": expected 5 fields (minute hour day-of-month month weekday, e.g. "*/5 * * * *") or 6 with seconds first, got 2',
      ],
    ],
  ],
  [
    'cron field out of range',
    `${ACCOUNT}collectors:\n  billing:\n    schedule: "61 * * * *"\n`,
    [
      [
        'collectors.billing.schedule',
        'invalid cron expression "61 * * * *": minute field "61": 61 is outside the minute range 0-59',
      ],
    ],
  ],
  [
    'cron step as long as its field',
    `${ACCOUNT}collectors:\n  billing:\n    schedule: "*/61 * * * *"\n`,
    [
      [
        'collectors.billing.schedule',
        'invalid cron expression "*/61 * * * *": minute field "*/61": step 61 is not smaller than the minute range 0-59',
      ],
    ],
  ],
  [
    'cron day that never comes',
    `${ACCOUNT}collectors:\n  billing:\n    schedule: "0 0 31 2 *"\n`,
    [
      [
        'collectors.billing.schedule',
        'invalid cron expression "0 0 31 2 *": day-of-month "31" never occurs in month "2", so the schedule never fires',
      ],
    ],
  ],
  [
    'cron hour out of range, with seconds',
    `${ACCOUNT}collectors:\n  pods:\n    schedule: "0 0 24 * * *"\n`,
    [
      [
        'collectors.pods.schedule',
        'invalid cron expression "0 0 24 * * *": hour field "24": 24 is outside the hour range 0-23',
      ],
    ],
  ],
  [
    'cron weekday misnamed',
    `${ACCOUNT}collectors:\n  pods:\n    schedule: "0 9 * * mo"\n`,
    [
      [
        'collectors.pods.schedule',
        'invalid cron expression "0 9 * * mo": weekday field "mo": "mo" is not a number 0-7 or a name such as "sun"',
      ],
    ],
  ],
  [
    'cron range backwards',
    `${ACCOUNT}collectors:\n  pods:\n    schedule: "50-10 * * * *"\n`,
    [
      [
        'collectors.pods.schedule',
        'invalid cron expression "50-10 * * * *": minute field "50-10": range "50-10" runs backwards (write it from low to high)',
      ],
    ],
  ],
  [
    'cron month out of range, a field croner counts from zero',
    `${ACCOUNT}collectors:\n  catalog:\n    schedule: "0 0 1 13 *"\n`,
    [
      [
        'collectors.catalog.schedule',
        'invalid cron expression "0 0 1 13 *": month field "13": 13 is outside the month range 1-12',
      ],
    ],
  ],
  [
    'cron step without a range',
    `${ACCOUNT}collectors:\n  pods:\n    schedule: "5/15 * * * *"\n`,
    [
      [
        'collectors.pods.schedule',
        'invalid cron expression "5/15 * * * *": minute field "5/15": syntax error, stepping with numeric prefix (\'5/15\') is not allowed. Use wildcard (*/step) or range (min-max/step) instead.',
      ],
    ],
  ],
  [
    'unknown bucket size',
    `${ACCOUNT}collectors:\n  billing:\n    bucketSize: minute\n`,
    [['collectors.billing.bucketSize', 'expected one of hour, day, week, month, year, got "minute"']],
  ],
  [
    'unknown product',
    `${ACCOUNT}collectors:\n  catalog:\n    products: [POD, GPU]\n`,
    [['collectors.catalog.products[1]', 'expected one of POD, CLUSTER, SERVERLESS, got "GPU"']],
  ],
  [
    'no products',
    `${ACCOUNT}collectors:\n  catalog:\n    products: []\n`,
    [['collectors.catalog.products', 'must not be empty']],
  ],
  [
    'unknown log level',
    `${ACCOUNT}log:\n  level: verbose\n`,
    [['log.level', 'expected one of trace, debug, info, warn, error, fatal, got "verbose"']],
  ],
  [
    'unknown log format',
    `${ACCOUNT}log:\n  format: text\n`,
    [['log.format', 'expected one of auto, json, pretty, got "text"']],
  ],
  ['empty section', `${ACCOUNT}log:\n`, [['log', 'expected a mapping, got null']]],
  ['section of the wrong type', `${ACCOUNT}api: fast\n`, [['api', 'expected a mapping, got string']]],
  [
    'listen without a port',
    `${ACCOUNT}http:\n  listen: localhost\n`,
    [['http.listen', 'invalid listen address "localhost" (expected host:port, e.g. 0.0.0.0:9464 or [::]:9464)']],
  ],
  [
    'listen port out of range',
    `${ACCOUNT}http:\n  listen: 0.0.0.0:70000\n`,
    [['http.listen', 'invalid listen address "0.0.0.0:70000" (expected host:port, e.g. 0.0.0.0:9464 or [::]:9464)']],
  ],
  ['empty database path', `${ACCOUNT}database:\n  path: ""\n`, [['database.path', 'must not be empty']]],
  [
    'missing secret file',
    'accounts:\n  - name: main\n    apiKeyFile: missing.txt\n',
    [['accounts[0].apiKeyFile', 'cannot read file <dir>/missing.txt: ENOENT']],
  ],
  [
    'secret file is a folder',
    `${ACCOUNT}http:\n  bearerTokenFile: folder\n`,
    [['http.bearerTokenFile', 'cannot read file <dir>/folder: EISDIR']],
  ],
  [
    'a URL where a host name belongs, a port on a proxy range',
    `${ACCOUNT}http:\n  allowedHosts: [podwarden.lan, 'https://podwarden.lan/']\n  trustedProxies: [10.0.0.0/8, 10.0.0.0/33, proxy.lan]\n`,
    [
      [
        'http.allowedHosts[1]',
        'invalid host name "https://podwarden.lan/" (expected a name such as podwarden.internal, without scheme, port or path)',
      ],
      [
        'http.trustedProxies[1]',
        'invalid proxy address "10.0.0.0/33" (expected an IP address or a CIDR range such as 10.0.0.0/8)',
      ],
      [
        'http.trustedProxies[2]',
        'invalid proxy address "proxy.lan" (expected an IP address or a CIDR range such as 10.0.0.0/8)',
      ],
    ],
  ],
  [
    'empty secret file',
    'accounts:\n  - name: main\n    apiKeyFile: empty.txt\n',
    [['accounts[0].apiKeyFile', 'file <dir>/empty.txt is empty']],
  ],
  [
    'both bearerToken and bearerTokenFile',
    `${ACCOUNT}http:\n  bearerToken: token-0001\n  bearerTokenFile: secret.txt\n`,
    [['http.bearerTokenFile', 'set bearerToken or bearerTokenFile, not both']],
  ],
  [
    'both linkSecret and linkSecretFile, and both bearer tokens',
    `${ACCOUNT}http:\n  linkSecret: link-secret-0001-abcdef\n  linkSecretFile: secret.txt\n  bearerToken: token-0001\n  bearerTokenFile: secret.txt\n`,
    [
      ['http.bearerTokenFile', 'set bearerToken or bearerTokenFile, not both'],
      ['http.linkSecretFile', 'set linkSecret or linkSecretFile, not both'],
    ],
  ],
  [
    'short linkSecret',
    `${ACCOUNT}http:\n  linkSecret: short\n`,
    [['http.linkSecret', 'too short: at least 16 characters']],
  ],
  [
    'bad linkExpiry',
    `${ACCOUNT}http:\n  linkExpiry: soon\n`,
    [['http.linkExpiry', 'invalid duration "soon" (expected e.g. 90s, 30m, 6h, 2d, 1h30m)']],
  ],
  [
    'unset environment variable',
    'accounts:\n  - name: main\n    apiKey: ${PODWARDEN_TEST_UNSET_KEY}\n',
    [['accounts[0].apiKey', 'environment variable PODWARDEN_TEST_UNSET_KEY is not set']],
  ],
  [
    'unterminated reference',
    `${ACCOUNT}database:\n  path: \${DATA_<dir>/podwarden.db\n`,
    [['database.path', 'unterminated "${" (write "$${" for a literal "${")']],
  ],
  [
    'invalid variable name',
    `${ACCOUNT}database:\n  path: \${data-dir}/podwarden.db\n`,
    [['database.path', 'invalid reference "${data-dir}" (expected ${NAME} or ${NAME:-default})']],
  ],
  [
    'route to an Alertmanager that is not configured',
    `${ACCOUNT}alerts:\n  route:\n    idle: [alertmanager]\n`,
    [['alerts.route.idle', 'routes to alertmanager, but alerts.alertmanager is not set']],
  ],
  [
    'unknown alert channel',
    `${ACCOUNT}alerts:\n  route:\n    idle: [pager]\n`,
    [['alerts.route.idle[0]', 'expected one of email, alertmanager, slack, webhook, got "pager"']],
  ],
  [
    'a route to a Slack destination that is not configured',
    `${ACCOUNT}slack:\n  destinations:\n    - { name: ml-team, webhookUrl: https://hooks.slack.com/services/T0/B0/x }\nalerts:\n  routes:\n    - { match: { rule: idle }, to: { slack: [owner, ml-tem] } }\n`,
    [['alerts.routes[0].to.slack[1]', 'unknown Slack destination "ml-tem" (configured: ml-team)']],
  ],
  [
    'a contact naming a webhook destination without a webhook section',
    `${ACCOUNT}owners:\n  contacts:\n    alice: { webhook: [pager] }\n`,
    [['owners.contacts.alice.webhook[0]', 'unknown webhook destination "pager" (no webhook section)']],
  ],
  [
    'Alertmanager without URLs',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: []\n`,
    [['alerts.alertmanager.urls', 'at least one Alertmanager URL is required']],
  ],
  [
    'Alertmanager URL not http',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: [alertmanager:9093]\n`,
    [['alerts.alertmanager.urls[0]', 'invalid URL "alertmanager:9093" (expected an http:// or https:// URL)']],
  ],
  [
    'Alertmanager URL with credentials',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: ['https://pw:hunter2@am.example.com']\n`,
    [['alerts.alertmanager.urls[0]', 'credentials in the URL: set basicAuth (or bearerToken) instead']],
  ],
  [
    'Alertmanager URL listed twice',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: [http://am:9093, http://am:9093/]\n`,
    [['alerts.alertmanager.urls[1]', '"http://am:9093" is listed twice']],
  ],
  [
    'Alertmanager with basic auth and a bearer token',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: [http://am:9093]\n    bearerToken: t0ken\n    basicAuth:\n      username: pw\n      password: pass\n`,
    [['alerts.alertmanager.basicAuth', 'set basicAuth or bearerToken, not both']],
  ],
  [
    'Alertmanager basic auth without a password',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: [http://am:9093]\n    basicAuth:\n      username: pw\n`,
    [['alerts.alertmanager.basicAuth.password', 'required (or set passwordFile)']],
  ],
  [
    'Alertmanager token file missing',
    `${ACCOUNT}alerts:\n  alertmanager:\n    urls: [http://am:9093]\n    bearerTokenFile: nope.txt\n`,
    [['alerts.alertmanager.bearerTokenFile', 'cannot read file <dir>/nope.txt: ENOENT']],
  ],
  ['root is a list', '- accounts\n', [['(root)', 'expected a mapping, got list']]],
  ['empty file', '# nothing yet\n', [['(root)', 'empty configuration (at least "accounts" is required)']]],
  [
    'YAML syntax error',
    `${ACCOUNT}api:\n  retries: [1, 2\nlog: {}\n`,
    [
      [
        '<file>',
        'invalid YAML at line 6, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
      ],
    ],
  ],
  [
    'duplicate YAML key',
    `${ACCOUNT}log:\n  level: info\n  level: debug\n`,
    [['<file>', 'invalid YAML at line 6, column 3: Map keys must be unique']],
  ],
  [
    'alias to a missing anchor',
    `${ACCOUNT}log: *defaults\n`,
    [['<file>', 'invalid YAML: Unresolved alias (the anchor must be set before the alias): defaults']],
  ],
];

describe('bad configurations', () => {
  it('has many cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  cases.forEach(([what, yaml, expected], index) => {
    it(`${what}: reports each problem with its path and exact message`, () => {
      const file = scratch.write(`case-${index}.yaml`, yaml);
      const problems = problemsOf(() => loadConfig({ path: file, env: {} }));
      const fill = (text: string) => text.replaceAll('<file>', file).replaceAll('<dir>', scratch.dir);
      expect(problems).toEqual(
        expected.map(([path, message]): Problem => ({ path: fill(path), message: fill(message) })),
      );
    });
  });

  it('reports every problem of a file in one pass, not just the first', () => {
    const file = scratch.write(
      'many.yaml',
      [
        'accounts:',
        '  - name: Main',
        '    apiKey: ${PODWARDEN_TEST_UNSET_KEY}',
        '    color: blue',
        '  - name: Main',
        'api:',
        '  timeouts:',
        '    connect: soon',
        'collectors:',
        '  pods:',
        '    schedule: hourly',
        'log:',
        '  level: loud',
        '',
      ].join('\n'),
    );
    const problems = problemsOf(() => loadConfig({ path: file, env: {} }));
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'accounts[0].apiKey: environment variable PODWARDEN_TEST_UNSET_KEY is not set',
      'accounts[0].name: invalid account name "Main" (expected lowercase letters, digits, "_" and "-", starting with a letter or digit)',
      'accounts[0].color: unknown field',
      'accounts[1].name: invalid account name "Main" (expected lowercase letters, digits, "_" and "-", starting with a letter or digit)',
      'accounts[1].apiKey: required (or set apiKeyFile)',
      'accounts[1].name: duplicate account name "Main" (also accounts[0].name)',
      'api.timeouts.connect: invalid duration "soon" (expected e.g. 90s, 30m, 6h, 2d, 1h30m)',
      'collectors.pods.schedule: invalid cron expression "hourly": expected 5 fields (minute hour day-of-month month weekday, e.g. "*/5 * * * *") or 6 with seconds first, got 1',
      'log.level: expected one of trace, debug, info, warn, error, fatal, got "loud"',
    ]);
  });

  it('names the missing configuration file', () => {
    const file = join(scratch.dir, 'absent.yaml');
    expect(problemsOf(() => loadConfig({ path: file, env: {} }))).toEqual([
      { path: '', message: `cannot read file ${file}: ENOENT` },
    ]);
  });

  it('says how to give a configuration when none is given', () => {
    const problems = problemsOf(() => loadConfig({ env: {} }));
    expect(problems).toEqual([{ path: '', message: 'no configuration: pass --config PATH or set PODWARDEN_CONFIG' }]);
  });
});
