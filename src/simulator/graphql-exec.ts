import type { FieldNode, OperationNode, TypeNode, ValueNode } from './graphql-parser.js';

/**
 * Validation and execution over a small schema table: enough GraphQL semantics (typed fields,
 * input objects, variables, partial results with errors) that a client sees what a real server
 * would answer, including the error messages graphql-js words them with.
 */

/** A type reference in SDL notation: `String`, `Int!`, `[Pod]`, `PodFilter!`. */
export type TypeRef = string;

export interface FieldDef<Ctx> {
  type: TypeRef;
  args?: Record<string, TypeRef>;
  /** Defaults to reading the field of the same name on the parent value. */
  resolve?: (parent: Record<string, unknown>, args: Record<string, unknown>, ctx: Ctx) => unknown;
}

export interface Schema<Ctx> {
  objects: Record<string, Record<string, FieldDef<Ctx>>>;
  inputs: Record<string, Record<string, TypeRef>>;
}

export interface GraphQLErrorEntry {
  message: string;
  path?: Array<string | number>;
  extensions: { code: string };
}

/** Thrown by resolvers; becomes an `errors[]` entry and a null at the field's path. */
export class FieldError extends Error {
  constructor(
    message: string,
    readonly code = 'RUNPOD',
  ) {
    super(message);
  }
}

const SCALARS: Record<string, (value: unknown) => boolean> = {
  String: (v) => typeof v === 'string',
  ID: (v) => typeof v === 'string' || Number.isInteger(v),
  Int: (v) => Number.isInteger(v),
  Float: (v) => typeof v === 'number' && Number.isFinite(v),
  Boolean: (v) => typeof v === 'boolean',
};

interface Parsed {
  name: string;
  list: boolean;
  nonNull: boolean;
  itemNonNull: boolean;
}

/** Type references read, by their text: the schema's are read on every request. */
const refs = new Map<TypeRef, Parsed>();
const MAX_REFS = 256;

function parseRef(ref: TypeRef): Parsed {
  let parsed = refs.get(ref);
  if (parsed === undefined) {
    parsed = readRef(ref);
    if (refs.size < MAX_REFS) refs.set(ref, parsed);
  }
  return parsed;
}

function readRef(ref: TypeRef): Parsed {
  const match = /^(\[)?(\w+)(!)?(\])?(!)?$/.exec(ref);
  if (!match?.[2]) throw new Error(`graphql schema: bad type reference ${ref}`);
  const list = match[1] === '[';
  return list
    ? { name: match[2], list, itemNonNull: match[3] === '!', nonNull: match[5] === '!' }
    : { name: match[2], list, itemNonNull: false, nonNull: match[3] === '!' };
}

function printType(node: TypeNode): string {
  const inner = node.kind === 'Named' ? node.name : `[${printType(node.of)}]`;
  return node.nonNull ? `${inner}!` : inner;
}

/** Validates an operation; on success returns the coerced arguments of every field, by node. */
export function validate<Ctx>(
  schema: Schema<Ctx>,
  operation: OperationNode,
  variables: Record<string, unknown>,
): { errors: string[]; args: Map<FieldNode, Record<string, unknown>> } {
  const errors: string[] = [];
  const args = new Map<FieldNode, Record<string, unknown>>();
  const values: Record<string, unknown> = {};
  for (const definition of operation.variables) {
    const typeText = printType(definition.type);
    const given = definition.name in variables ? variables[definition.name] : undefined;
    const value = given ?? (definition.defaultValue ? literal(definition.defaultValue, {}, errors) : undefined);
    if ((value === undefined || value === null) && definition.type.nonNull) {
      errors.push(`Variable "$${definition.name}" of required type "${typeText}" was not provided.`);
      continue;
    }
    const problems = coerce(schema, value, typeText, `Variable "$${definition.name}"`);
    errors.push(...problems);
    values[definition.name] = value;
  }
  const declared = new Set(operation.variables.map((v) => v.name));
  const root = operation.operation === 'query' ? 'Query' : operation.operation === 'mutation' ? 'Mutation' : undefined;
  if (!root || !schema.objects[root]) {
    errors.push(`Schema is not configured to execute ${operation.operation} operation.`);
    return { errors, args };
  }
  const walk = (fields: FieldNode[], typeName: string): void => {
    const type = schema.objects[typeName] ?? {};
    for (const field of fields) {
      if (field.name === '__typename') {
        if (field.selections)
          errors.push(`Field "__typename" must not have a selection since type "String!" has no subfields.`);
        continue;
      }
      const def = type[field.name];
      if (!def) {
        errors.push(`Cannot query field "${field.name}" on type "${typeName}".`);
        continue;
      }
      args.set(field, checkArgs(schema, field, def, typeName, values, declared, errors));
      const { name } = parseRef(def.type);
      if (schema.objects[name]) {
        if (field.selections) walk(field.selections, name);
        else
          errors.push(
            `Field "${field.name}" of type "${def.type}" must have a selection of subfields. Did you mean "${field.name} { ... }"?`,
          );
      } else if (field.selections) {
        errors.push(`Field "${field.name}" must not have a selection since type "${def.type}" has no subfields.`);
      }
    }
  };
  walk(operation.selections, root);
  return { errors, args };
}

function checkArgs<Ctx>(
  schema: Schema<Ctx>,
  field: FieldNode,
  def: FieldDef<Ctx>,
  typeName: string,
  variables: Record<string, unknown>,
  declared: Set<string>,
  errors: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const defs = def.args ?? {};
  for (const arg of field.args) {
    const ref = defs[arg.name];
    if (!ref) {
      errors.push(`Unknown argument "${arg.name}" on field "${typeName}.${field.name}".`);
      continue;
    }
    for (const name of variablesIn(arg.value)) {
      if (!declared.has(name)) errors.push(`Variable "$${name}" is not defined.`);
    }
    out[arg.name] = literal(arg.value, variables, errors);
    errors.push(...coerce(schema, out[arg.name], ref, `Argument "${arg.name}"`));
  }
  for (const [name, ref] of Object.entries(defs)) {
    if (parseRef(ref).nonNull && !(name in out)) {
      errors.push(`Field "${field.name}" argument "${name}" of type "${ref}" is required, but it was not provided.`);
    }
  }
  return out;
}

function variablesIn(value: ValueNode): string[] {
  if (value.kind === 'Variable') return [value.name];
  if (value.kind === 'List') return value.values.flatMap(variablesIn);
  if (value.kind === 'Object') return value.fields.flatMap((f) => variablesIn(f.value));
  return [];
}

function literal(value: ValueNode, variables: Record<string, unknown>, errors: string[]): unknown {
  switch (value.kind) {
    case 'Variable':
      return variables[value.name];
    case 'Null':
      return null;
    case 'List':
      return value.values.map((v) => literal(v, variables, errors));
    case 'Object':
      return Object.fromEntries(value.fields.map((f) => [f.name, literal(f.value, variables, errors)]));
    default:
      return value.value;
  }
}

/** Checks a value against an input type; returns graphql-js style messages for what is wrong. */
function coerce<Ctx>(schema: Schema<Ctx>, value: unknown, ref: TypeRef, where: string): string[] {
  const type = parseRef(ref);
  if (value === undefined || value === null)
    return type.nonNull ? [`${where} of required type "${ref}" was not provided.`] : [];
  if (type.list) {
    const items = Array.isArray(value) ? value : [value];
    const itemRef = `${type.name}${type.itemNonNull ? '!' : ''}`;
    return items.flatMap((item, i) => coerce(schema, item, itemRef, `${where}[${i}]`));
  }
  const scalar = SCALARS[type.name];
  if (scalar) return scalar(value) ? [] : [`${type.name} cannot represent value: ${JSON.stringify(value)}`];
  const input = schema.inputs[type.name];
  if (!input) return [`Unknown type "${type.name}".`];
  if (typeof value !== 'object' || Array.isArray(value)) {
    return [`Expected value of type "${ref}", found ${JSON.stringify(value)}.`];
  }
  const record = value as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((name) => !(name in input))
    .map((name) => `Field "${name}" is not defined by type "${type.name}".`);
  for (const [name, fieldRef] of Object.entries(input)) {
    const fieldValue = record[name];
    if ((fieldValue === undefined || fieldValue === null) && parseRef(fieldRef).nonNull) {
      problems.push(`Field "${type.name}.${name}" of required type "${fieldRef}" was not provided.`);
    } else problems.push(...coerce(schema, fieldValue, fieldRef, `Field "${type.name}.${name}"`));
  }
  return problems;
}

/** Executes a validated operation: resolver failures null their field and add an error entry. */
export function execute<Ctx>(
  schema: Schema<Ctx>,
  operation: OperationNode,
  args: Map<FieldNode, Record<string, unknown>>,
  ctx: Ctx,
): { data: Record<string, unknown>; errors: GraphQLErrorEntry[] } {
  const errors: GraphQLErrorEntry[] = [];
  const selectObject = (
    parent: Record<string, unknown>,
    fields: FieldNode[],
    typeName: string,
    path: Array<string | number>,
  ): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const field of fields) {
      const key = field.alias ?? field.name;
      if (field.name === '__typename') {
        out[key] = typeName;
        continue;
      }
      const def = schema.objects[typeName]?.[field.name] as FieldDef<Ctx>;
      const fieldPath = [...path, key];
      try {
        const raw = def.resolve ? def.resolve(parent, args.get(field) ?? {}, ctx) : parent[field.name];
        out[key] = complete(raw, parseRef(def.type), field, fieldPath);
      } catch (error) {
        if (!(error instanceof FieldError)) throw error;
        errors.push({ message: error.message, path: fieldPath, extensions: { code: error.code } });
        out[key] = null;
      }
    }
    return out;
  };
  const complete = (value: unknown, type: Parsed, field: FieldNode, path: Array<string | number>): unknown => {
    if (value === undefined || value === null) return null;
    if (type.list) {
      const item = { ...type, list: false, nonNull: type.itemNonNull };
      return (value as unknown[]).map((v, i) => complete(v, item, field, [...path, i]));
    }
    if (!schema.objects[type.name] || !field.selections) return value;
    return selectObject(value as Record<string, unknown>, field.selections, type.name, path);
  };
  const root = operation.operation === 'mutation' ? 'Mutation' : 'Query';
  const data = selectObject({}, operation.selections, root, []);
  return { data, errors };
}
