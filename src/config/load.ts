import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError, type Problem } from './errors.js';
import type { ParseContext } from './fields.js';
import { interpolateEnv } from './interpolate.js';
import { describeIssue, problemsFromIssues } from './issues.js';
import { type Config, configSchema } from './schema.js';

export { ConfigError, type Problem } from './errors.js';
export type { AccountConfig, Config } from './schema.js';

/**
 * Reads, interpolates and validates the configuration file named by `path`, or else by
 * `PODWARDEN_CONFIG` in `env`. Throws ConfigError listing every problem found.
 */
export function loadConfig(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): Config {
  const env = options.env ?? process.env;
  const source = configFile(options);
  return parseConfig(readYaml(source), { env, baseDir: dirname(source), source });
}

/** The absolute path of the configuration file `loadConfig` reads with these options. */
export function configFile(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const given = options.path || (options.env ?? process.env).PODWARDEN_CONFIG;
  if (!given) {
    throw new ConfigError([{ path: '', message: 'no configuration: pass --config PATH or set PODWARDEN_CONFIG' }]);
  }
  return resolve(given);
}

/** Validates an already-parsed YAML tree; `baseDir` anchors relative paths, `source` names it in errors. */
export function parseConfig(
  raw: unknown,
  options: { env: NodeJS.ProcessEnv; baseDir: string; source?: string },
): Config {
  if (raw === null || raw === undefined) {
    throw new ConfigError(
      [{ path: '(root)', message: 'empty configuration (at least "accounts" is required)' }],
      options.source,
    );
  }
  const interpolated = interpolateEnv(raw, options.env);
  return validate(interpolated.value, { baseDir: options.baseDir }, interpolated.problems, options.source);
}

/** A complete configuration with every default, for `podwarden simulate` run without --config. */
export function defaultConfig(
  accounts: Array<{ name: string; apiKey: string; restBaseUrl?: string; graphqlBaseUrl?: string }>,
): Config {
  return validate({ accounts }, { baseDir: process.cwd() }, [], 'defaults');
}

function validate(data: unknown, ctx: ParseContext, earlier: Problem[], source: string | undefined): Config {
  // jitless: zod compiles a parser for each object schema on its first parse, which pays back
  // only over many parses; a configuration is parsed once, by a schema built for it, so the
  // compile would never pay back and would be a large part of validating it.
  const result = configSchema(ctx).safeParse(data, { error: describeIssue, jitless: true });
  // A value whose ${VAR} could not be filled would also fail validation; report only the cause.
  const unfilled = new Set(earlier.map((problem) => problem.path));
  const later = result.success
    ? []
    : problemsFromIssues(result.error.issues).filter((problem) => !unfilled.has(problem.path));
  const problems = [...earlier, ...later];
  if (problems.length > 0 || !result.success) throw new ConfigError(problems, source);
  return result.data;
}

function readYaml(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError([{ path: '', message: `cannot read file ${file}: ${reason}` }], file);
  }
  // `merge` allows `<<: *defaults`, handy when several accounts share settings.
  const document = parseDocument(text, { merge: true });
  if (document.errors.length > 0) {
    throw new ConfigError(
      document.errors.map((error) => {
        const at = error.linePos?.[0];
        const what = error.message.split(' at line ')[0] ?? error.message;
        return {
          path: file,
          message: at ? `invalid YAML at line ${at.line}, column ${at.col}: ${what}` : `invalid YAML: ${what}`,
        };
      }),
      file,
    );
  }
  try {
    return document.toJS();
  } catch (error) {
    // An alias to an anchor that does not exist surfaces only here.
    throw new ConfigError([{ path: file, message: `invalid YAML: ${(error as Error).message}` }], file);
  }
}
