import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { registerSecret } from '../redact.js';
import type { ParseContext } from './fields.js';

/**
 * Every secret field: written inline or as `<name>File`, never both, and out under its own name.
 * `maskedConfig` masks exactly these names, and `secretShape` accepts no other.
 */
export const SECRET_FIELDS = ['apiKey', 'bearerToken', 'linkSecret', 'password', 'secret', 'webhookUrl'] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];

type FileKey<K extends string> = `${K}File`;
type SecretShape<K extends SecretField> = {
  [P in K | FileKey<K>]: z.ZodOptional<z.ZodPipe<z.ZodString, z.ZodTransform<string, string>>>;
};
type Simplify<T> = { [P in keyof T]: T[P] } & {};
type WithSecret<T, K extends SecretField, Required extends boolean> = Simplify<
  Omit<T, K | FileKey<K>> & (Required extends true ? { [P in K]: string } : { [P in K]?: string })
>;

/** What a secret must be to be accepted; `minLength` comes with the reason shown when it is not met. */
export interface SecretRules {
  minLength?: number;
}

/**
 * The two fields of one secret, to spread into an object's shape. A value is registered with the
 * redactor only once it is accepted: a refused one (too short) is no secret, and masking it would
 * rewrite the very error that refuses it ("too short" for a secret `short`).
 */
export function secretShape<K extends SecretField>(key: K, ctx: ParseContext, rules: SecretRules = {}): SecretShape<K> {
  return {
    [key]: z
      .string()
      .min(1)
      .transform(accepted(rules))
      .optional()
      .describe(`The ${key}, written inline (or \`\${VAR}\`); or read it from a file with ${key}File, not both.`),
    [`${key}File`]: z
      .string()
      .min(1)
      .transform(readSecretFile(ctx, rules))
      .optional()
      .describe(`Or read ${key} from this file (one trailing newline is dropped), instead of ${key}.`),
  } as SecretShape<K>;
}

/**
 * Checks that each secret `key` is set once (at most once when optional), even when other fields
 * are wrong, so one pass reports every problem; merges `<key>File` into `<key>`.
 */
export function withSecret<S extends z.ZodObject, K extends SecretField, Required extends boolean>(
  schema: S,
  key: K | readonly K[],
  options: { required: Required },
) {
  const keys: readonly K[] = typeof key === 'string' ? [key] : key;
  const fileKeys = new Map<string, K>(keys.map((name) => [`${name}File`, name]));
  return schema
    .superRefine(
      (value, ctx) => {
        const fields = value as Record<string, unknown>;
        for (const name of keys) {
          const fileKey: FileKey<K> = `${name}File`;
          const inline = fields[name] !== undefined;
          const fromFile = fields[fileKey] !== undefined;
          if (inline && fromFile) {
            ctx.addIssue({ code: 'custom', path: [fileKey], message: `set ${name} or ${fileKey}, not both` });
          } else if (options.required && !inline && !fromFile) {
            ctx.addIssue({ code: 'custom', path: [name], message: `required (or set ${fileKey})` });
          }
        }
      },
      { when: ({ value }) => value !== null && typeof value === 'object' && !Array.isArray(value) },
    )
    .transform((value) => {
      const out: Record<string, unknown> = {};
      for (const [name, item] of Object.entries(value)) {
        const field = fileKeys.get(name) ?? name;
        // An unset secret field is left out, so `<key>File` never overwrites `<key>` with nothing.
        if (item !== undefined || !keys.includes(field as K)) out[field] = item;
      }
      return out as WithSecret<z.output<S>, K, Required>;
    });
}

function accepted(rules: SecretRules) {
  return (value: string, issues: z.RefinementCtx): string => {
    if (rules.minLength !== undefined && value.length < rules.minLength) {
      issues.addIssue({ code: 'custom', message: `too short: at least ${rules.minLength} characters`, input: value });
      return z.NEVER;
    }
    registerSecret(value);
    return value;
  };
}

/** Reads a secret file relative to the config's folder; one trailing newline (as `echo` writes) is not part of it. */
function readSecretFile(ctx: ParseContext, rules: SecretRules) {
  return (file: string, issues: z.RefinementCtx): string => {
    const path = resolve(ctx.baseDir, file);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      issues.addIssue({ code: 'custom', message: `cannot read file ${path}: ${reason}`, input: file });
      return z.NEVER;
    }
    const value = text.replace(/\r?\n$/, '');
    if (!value) {
      issues.addIssue({ code: 'custom', message: `file ${path} is empty`, input: file });
      return z.NEVER;
    }
    return accepted(rules)(value, issues);
  };
}
