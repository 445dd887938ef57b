import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  configJsonSchema,
  exampleDescriptions,
  jsonSchemaText,
  optionsOf,
  REFERENCE_FILE,
  referenceMarkdown,
  SCHEMA_FILE,
} from '../../scripts/config-reference.js';
import { packagePath } from '../../src/package-root.js';

const CONFIGS = ['config/podwarden.example.yaml', 'config/demo.yaml'];
const read = (file: string) => readFileSync(packagePath(file), 'utf8');

// ajv-formats is CommonJS: its function is the module's default export's default under Node's ESM.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(configJsonSchema());
}

describe('the configuration JSON Schema and reference page', () => {
  it(`are what \`npm run config:schema\` makes of the zod schema (${SCHEMA_FILE}, ${REFERENCE_FILE})`, () => {
    expect(read(SCHEMA_FILE), 'run npm run config:schema').toBe(jsonSchemaText());
    expect(read(REFERENCE_FILE), 'run npm run config:schema').toBe(referenceMarkdown());
  });

  it('are named by the example configurations for editors (yaml-language-server)', () => {
    for (const file of CONFIGS) {
      expect(read(file).split('\n')[0], file).toBe('# yaml-language-server: $schema=./podwarden.schema.json');
    }
  });

  it('accepts the shipped configurations and rejects what zod rejects for its shape', () => {
    const validate = validator();
    for (const file of CONFIGS) {
      expect(validate(parse(read(file), { merge: true })), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const account = { name: 'main', apiKey: 'rpa_0001' };
    expect(validate({ accounts: [account] })).toBe(true);
    expect(validate({ accounts: [] })).toBe(false);
    expect(validate({ accounts: [account], budgets: [{ name: 'm', amount: '100' }] })).toBe(false);
    expect(validate({ accounts: [account], budgets: [{ name: 'm', amount: 100, perod: 'day' }] })).toBe(false);
    expect(validate({ accounts: [account], log: { level: 'loud' } })).toBe(false);
  });

  it('describes every option, in the words of the zod field or of the commented example', () => {
    const undescribed = optionsOf(configJsonSchema())
      .filter((option) => option.schema.description === undefined)
      .map((option) => option.path);
    expect(undescribed).toEqual([]);
  });

  it('reads each option its comment in the example, commented-out options included', () => {
    const words = exampleDescriptions(read('config/podwarden.example.yaml'));
    expect(words.get('accounts[].apiKeyFile')).toBe('Or read the key from a file instead of apiKey.');
    expect(words.get('budgets[].amount')).toBe('USD per period.');
    expect(words.get('api.timeouts.connect')).toBe('To open the connection.');
  });
});
