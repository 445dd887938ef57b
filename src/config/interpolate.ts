import { formatPath, type Problem } from './errors.js';

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Replaces `${VAR}` and `${VAR:-default}` (also for an empty VAR, as in a shell) in every string
 * value, not keys; `$${` is a literal `${`. Values stay strings. Problems name their config path.
 */
export function interpolateEnv(raw: unknown, env: NodeJS.ProcessEnv): { value: unknown; problems: Problem[] } {
  const problems: Problem[] = [];
  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (typeof node === 'string') return substitute(node, env, formatPath(path), problems);
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };
  return { value: walk(raw, []), problems };
}

/** `$${` is a literal `${`; a `${` without its `}` leaves the rest of the text as written. */
const REFERENCE = /\$\$\{|\$\{([^}]*)(\})?/g;

function substitute(text: string, env: NodeJS.ProcessEnv, path: string, problems: Problem[]): string {
  return text.replace(REFERENCE, (match, reference: string | undefined, close: string | undefined) => {
    if (reference === undefined) return '${';
    if (close === undefined) {
      problems.push({ path, message: 'unterminated "${" (write "$${" for a literal "${")' });
      return match;
    }
    return resolveReference(reference, env, path, problems);
  });
}

function resolveReference(reference: string, env: NodeJS.ProcessEnv, path: string, problems: Problem[]): string {
  const separator = reference.indexOf(':-');
  const name = separator < 0 ? reference : reference.slice(0, separator);
  if (!NAME.test(name)) {
    problems.push({ path, message: `invalid reference "\${${reference}}" (expected \${NAME} or \${NAME:-default})` });
    return '';
  }
  const value = env[name];
  if (separator >= 0) return value ? value : reference.slice(separator + 2);
  if (value === undefined) {
    problems.push({ path, message: `environment variable ${name} is not set` });
    return '';
  }
  return value;
}
