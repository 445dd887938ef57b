import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');
const LAYERS_FILE = 'docs/layers.md';

interface Unit {
  name: string;
  /** 1 for the lowest layer; undefined for a unit apart. */
  layer?: number;
  /** For a unit apart: the only units it imports, and the only ones that import it. */
  imports?: readonly string[];
  importedBy?: readonly string[];
}

/** The units of the layer file, keyed by folder (`config/`) or root file (`clock.ts`). */
function readLayers(): { units: Map<string, Unit>; problems: string[] } {
  const units = new Map<string, Unit>();
  const problems: string[] = [];
  const name = (key: string, unit: Unit) => {
    if (units.has(key)) problems.push(`${LAYERS_FILE}: ${key} is named twice`);
    units.set(key, unit);
  };
  for (const line of readFileSync(join(root, LAYERS_FILE), 'utf8').split('\n')) {
    const layer = /^(\d+)\. (.+)$/.exec(line);
    if (layer) {
      const level = Number(layer[1]);
      for (const part of (layer[2] as string).split(/,\s*(?![^(]*\))/)) {
        const files = /^([\w-]+) \(([^)]+)\)$/.exec(part.trim());
        if (files) {
          for (const file of (files[2] as string).split(/\s+/)) name(file, { name: files[1] as string, layer: level });
        } else if (/^[\w-]+\/$/.test(part.trim())) {
          name(part.trim(), { name: part.trim(), layer: level });
        } else {
          problems.push(`${LAYERS_FILE}: cannot read the unit "${part}" of layer ${level}`);
        }
      }
      continue;
    }
    const apart = /^- ([\w-]+\/) imports only: ([^;]+); is imported only by: (.+)$/.exec(line);
    if (apart) {
      const list = (text: string) => text.split(/,\s*/).map((unit) => unit.trim());
      name(apart[1] as string, {
        name: apart[1] as string,
        imports: list(apart[2] as string),
        importedBy: list(apart[3] as string),
      });
    }
  }
  return { units, problems };
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The unit key of a file under src/: its top folder (`db/`), or its own name at the root. */
function keyOf(file: string): string {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : (parts[0] as string);
}

/**
 * Every module specifier of a file: imports and re-exports (type-only ones too), `import()`
 * calls and `import('x').T` types. A specifier that is not a string literal cannot be checked.
 */
function specifiersOf(file: string): Array<{ specifier: string | undefined; line: number }> {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ specifier: string | undefined; line: number }> = [];
  const add = (node: ts.Node, expression: ts.Node | undefined) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    found.push({ specifier: expression && ts.isStringLiteralLike(expression) ? expression.text : undefined, line });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || (ts.isExportDeclaration(node) && node.moduleSpecifier)) {
      add(node, node.moduleSpecifier);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node, node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Edge {
  from: string;
  to: string;
  /** `src/db/spend.ts:1 imports ../collectors/billing-windows.js` */
  where: string;
}

/** Imports from one unit into another, and specifiers that name no checkable file. */
function crossImports(): { edges: Edge[]; unreadable: string[]; files: number } {
  const edges: Edge[] = [];
  const unreadable: string[] = [];
  const files = sources(src);
  for (const file of files) {
    for (const { specifier, line } of specifiersOf(file)) {
      const at = `${relative(root, file)}:${line}`;
      if (specifier === undefined) {
        unreadable.push(`${at} imports a module named by an expression`);
        continue;
      }
      if (!specifier.startsWith('.')) continue; // a package
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(src + sep)) {
        unreadable.push(`${at} imports ${specifier}, outside src/`);
        continue;
      }
      const from = keyOf(file);
      const to = keyOf(target.replace(/\.js$/, '.ts'));
      if (from !== to) edges.push({ from, to, where: `${at} imports ${specifier}` });
    }
  }
  return { edges, unreadable, files: files.length };
}

/** Why an import from one unit into another breaks the order, or undefined when it keeps it. */
function breach(units: Map<string, Unit>, from: string, to: string): string | undefined {
  const a = units.get(from);
  const b = units.get(to);
  if (!a) return `${from} is in no layer of ${LAYERS_FILE}`;
  if (!b) return `${to} is in no layer of ${LAYERS_FILE}`;
  if (a.name === b.name) return undefined; // files of one named set
  if (a.layer === undefined) {
    const allowed = (a.imports ?? []).includes(b.name);
    return allowed ? undefined : `${from} stands apart and imports only ${(a.imports ?? []).join(', ')}`;
  }
  if (b.layer === undefined) {
    const allowed = (b.importedBy ?? []).includes(a.name);
    return allowed ? undefined : `${to} stands apart and is imported only by ${(b.importedBy ?? []).join(', ')}`;
  }
  if (b.layer > a.layer) return `${b.name} is above ${a.name} (layer ${b.layer} > ${a.layer})`;
  if (b.layer === a.layer) return `${b.name} is a sibling of ${a.name} on layer ${a.layer}`;
  return undefined;
}

/** The groups of units that reach each other (strongly connected, more than one unit). */
function unitCycles(edges: readonly { from: string; to: string }[], name: (key: string) => string): string[] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const [a, b] = [name(from), name(to)];
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)?.add(b);
  }
  const reaches = (start: string) => {
    const seen = new Set<string>([start]);
    const queue = [start];
    while (queue.length > 0) {
      for (const next of graph.get(queue.pop() as string) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return seen;
  };
  const groups = new Set<string>();
  for (const node of graph.keys()) {
    const mutual = [...reaches(node)].filter((other) => reaches(other).has(node)).sort();
    if (mutual.length > 1) groups.add(mutual.join(' <-> '));
  }
  return [...groups].sort();
}

describe(`folders under src/ flow one way (${LAYERS_FILE})`, () => {
  const { units, problems } = readLayers();
  const { edges, unreadable, files } = crossImports();
  const nameOf = (key: string) => units.get(key)?.name ?? key;

  it('the layer file names every folder and root file of src/, once', () => {
    expect(files).toBeGreaterThan(100);
    const unplaced = [...new Set(sources(src).map(keyOf))].filter((key) => !units.has(key)).sort();
    expect(problems).toEqual([]);
    expect(unplaced.map((key) => `${key} is in no layer of ${LAYERS_FILE}`)).toEqual([]);
  });

  it('every import names a file under src/ by a literal path', () => {
    expect(unreadable).toEqual([]);
  });

  it('no unit imports a higher one or a sibling', () => {
    const breaches = edges.flatMap(({ from, to, where }) => {
      const why = breach(units, from, to);
      return why ? [`${where}: ${why}`] : [];
    });
    expect(breaches).toEqual([]);
  });

  it('no units import each other, even through others', () => {
    expect(unitCycles(edges, nameOf)).toEqual([]);
  });
});
