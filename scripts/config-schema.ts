import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { packagePath } from '../src/package-root.js';
import {
  configJsonSchema,
  jsonSchemaText,
  REFERENCE_FILE,
  referenceMarkdown,
  SCHEMA_FILE,
} from './config-reference.js';

/** `npm run config:schema`: writes the configuration's JSON Schema and its reference page (config-reference.ts). */
const schema = configJsonSchema();
for (const [file, text] of [
  [SCHEMA_FILE, jsonSchemaText(schema)],
  [REFERENCE_FILE, referenceMarkdown(schema)],
] as const) {
  mkdirSync(dirname(packagePath(file)), { recursive: true });
  writeFileSync(packagePath(file), text);
  console.log(`wrote ${file}`);
}
