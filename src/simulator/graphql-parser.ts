/**
 * A parser for the executable part of GraphQL that RunPod's clients send: operations with
 * variables, fields with aliases and arguments, and literal values. Fragments and directives
 * are rejected with a clear error instead of being half-supported.
 */

export type ValueNode =
  | { kind: 'Variable'; name: string }
  | { kind: 'Int' | 'Float'; value: number }
  | { kind: 'String'; value: string }
  | { kind: 'Boolean'; value: boolean }
  | { kind: 'Null' }
  | { kind: 'Enum'; value: string }
  | { kind: 'List'; values: ValueNode[] }
  | { kind: 'Object'; fields: Array<{ name: string; value: ValueNode }> };

export interface FieldNode {
  alias?: string;
  name: string;
  args: Array<{ name: string; value: ValueNode }>;
  selections?: FieldNode[];
}

export type TypeNode =
  | { kind: 'Named'; name: string; nonNull: boolean }
  | { kind: 'List'; of: TypeNode; nonNull: boolean };

export interface VariableDefinition {
  name: string;
  type: TypeNode;
  defaultValue?: ValueNode;
}

export interface OperationNode {
  operation: 'query' | 'mutation' | 'subscription';
  name?: string;
  variables: VariableDefinition[];
  selections: FieldNode[];
}

export class GraphQLSyntaxError extends Error {
  constructor(
    detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`Syntax Error: ${detail}`);
  }
}

interface Token {
  kind: 'Punct' | 'Name' | 'Int' | 'Float' | 'String' | 'EOF';
  value: string;
  start: number;
}

const PUNCTUATORS = new Set(['!', '$', '&', '(', ')', ':', '=', '@', '[', ']', '{', '|', '}']);
const NAME_START = /[_A-Za-z]/;
const NAME_CHAR = /[_0-9A-Za-z]/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export function parseDocument(source: string): OperationNode[] {
  return new Parser(source).document();
}

class Parser {
  private pos = 0;
  private token: Token;

  constructor(private readonly source: string) {
    this.token = this.lex();
  }

  document(): OperationNode[] {
    const operations: OperationNode[] = [];
    do operations.push(this.definition());
    while (this.token.kind !== 'EOF');
    return operations;
  }

  private definition(): OperationNode {
    if (this.peek('Punct', '{')) return { operation: 'query', variables: [], selections: this.selectionSet() };
    const keyword = this.expect('Name');
    if (keyword.value === 'fragment') this.fail('fragments are not supported by the simulator', keyword);
    if (keyword.value !== 'query' && keyword.value !== 'mutation' && keyword.value !== 'subscription') {
      this.fail(`Unexpected Name "${keyword.value}".`, keyword);
    }
    const name = this.peek('Name') ? this.expect('Name').value : undefined;
    const variables = this.peek('Punct', '(') ? this.variableDefinitions() : [];
    this.rejectDirectives();
    return { operation: keyword.value, name, variables, selections: this.selectionSet() };
  }

  private variableDefinitions(): VariableDefinition[] {
    this.expect('Punct', '(');
    const definitions: VariableDefinition[] = [];
    while (!this.skip('Punct', ')')) {
      this.expect('Punct', '$');
      const name = this.expect('Name').value;
      this.expect('Punct', ':');
      const type = this.type();
      const defaultValue = this.skip('Punct', '=') ? this.value(true) : undefined;
      definitions.push({ name, type, defaultValue });
    }
    return definitions;
  }

  private type(): TypeNode {
    let type: TypeNode;
    if (this.skip('Punct', '[')) {
      const of = this.type();
      this.expect('Punct', ']');
      type = { kind: 'List', of, nonNull: false };
    } else {
      type = { kind: 'Named', name: this.expect('Name').value, nonNull: false };
    }
    if (this.skip('Punct', '!')) type.nonNull = true;
    return type;
  }

  private selectionSet(): FieldNode[] {
    this.expect('Punct', '{');
    const fields: FieldNode[] = [];
    do fields.push(this.field());
    while (!this.skip('Punct', '}'));
    return fields;
  }

  private field(): FieldNode {
    if (this.token.kind === 'Punct' && this.token.value === '...') {
      this.fail('fragments are not supported by the simulator', this.token);
    }
    let name = this.expect('Name').value;
    let alias: string | undefined;
    if (this.skip('Punct', ':')) {
      alias = name;
      name = this.expect('Name').value;
    }
    const args: FieldNode['args'] = [];
    if (this.skip('Punct', '(')) {
      while (!this.skip('Punct', ')')) {
        const argName = this.expect('Name').value;
        this.expect('Punct', ':');
        args.push({ name: argName, value: this.value(false) });
      }
    }
    this.rejectDirectives();
    const selections = this.peek('Punct', '{') ? this.selectionSet() : undefined;
    return { alias, name, args, selections };
  }

  private value(constant: boolean): ValueNode {
    const token = this.token;
    if (token.kind === 'Punct' && token.value === '$' && !constant) {
      this.advance();
      return { kind: 'Variable', name: this.expect('Name').value };
    }
    if (token.kind === 'Punct' && token.value === '[') {
      this.advance();
      const values: ValueNode[] = [];
      while (!this.skip('Punct', ']')) values.push(this.value(constant));
      return { kind: 'List', values };
    }
    if (token.kind === 'Punct' && token.value === '{') {
      this.advance();
      const fields: Array<{ name: string; value: ValueNode }> = [];
      while (!this.skip('Punct', '}')) {
        const name = this.expect('Name').value;
        this.expect('Punct', ':');
        fields.push({ name, value: this.value(constant) });
      }
      return { kind: 'Object', fields };
    }
    this.advance();
    switch (token.kind) {
      case 'Int':
        return { kind: 'Int', value: Number(token.value) };
      case 'Float':
        return { kind: 'Float', value: Number(token.value) };
      case 'String':
        return { kind: 'String', value: token.value };
      case 'Name':
        if (token.value === 'true' || token.value === 'false')
          return { kind: 'Boolean', value: token.value === 'true' };
        if (token.value === 'null') return { kind: 'Null' };
        return { kind: 'Enum', value: token.value };
      default:
        return this.fail(`Unexpected ${describe(token)}.`, token);
    }
  }

  private rejectDirectives(): void {
    if (this.peek('Punct', '@')) this.fail('directives are not supported by the simulator', this.token);
  }

  private peek(kind: Token['kind'], value?: string): boolean {
    return this.token.kind === kind && (value === undefined || this.token.value === value);
  }

  private skip(kind: Token['kind'], value: string): boolean {
    if (!this.peek(kind, value)) return false;
    this.advance();
    return true;
  }

  private expect(kind: Token['kind'], value?: string): Token {
    const token = this.token;
    if (!this.peek(kind, value)) {
      this.fail(`Expected ${value === undefined ? kind : `"${value}"`}, found ${describe(token)}.`, token);
    }
    this.advance();
    return token;
  }

  private advance(): void {
    this.token = this.lex();
  }

  private fail(detail: string, token: Token): never {
    const before = this.source.slice(0, token.start).split('\n');
    throw new GraphQLSyntaxError(detail, before.length, (before.at(-1)?.length ?? 0) + 1);
  }

  private lex(): Token {
    const src = this.source;
    // Whitespace, commas (insignificant in GraphQL), the byte-order mark and comments.
    while (this.pos < src.length) {
      const ch = src[this.pos] as string;
      if (ch === '#') {
        while (this.pos < src.length && src[this.pos] !== '\n') this.pos++;
      } else if (/[\s,\uFEFF]/.test(ch)) this.pos++;
      else break;
    }
    const start = this.pos;
    if (start >= src.length) return { kind: 'EOF', value: '', start };
    const ch = src[start] as string;
    if (src.startsWith('...', start)) {
      this.pos += 3;
      return { kind: 'Punct', value: '...', start };
    }
    if (PUNCTUATORS.has(ch)) {
      this.pos++;
      return { kind: 'Punct', value: ch, start };
    }
    if (NAME_START.test(ch)) {
      while (this.pos < src.length && NAME_CHAR.test(src[this.pos] as string)) this.pos++;
      return { kind: 'Name', value: src.slice(start, this.pos), start };
    }
    const number = NUMBER.exec(src.slice(start));
    if (number) {
      this.pos += number[0].length;
      return { kind: number[2] || number[3] ? 'Float' : 'Int', value: number[0], start };
    }
    if (ch === '"') return this.lexString(start);
    return this.fail(`Unexpected character "${ch}".`, { kind: 'EOF', value: ch, start });
  }

  private lexString(start: number): Token {
    const src = this.source;
    if (src.startsWith('"""', start)) {
      const end = src.indexOf('"""', start + 3);
      if (end < 0) this.fail('Unterminated string.', { kind: 'EOF', value: '', start });
      this.pos = end + 3;
      return { kind: 'String', value: src.slice(start + 3, end).trim(), start };
    }
    let value = '';
    let i = start + 1;
    for (;;) {
      const ch = src[i];
      if (ch === undefined || ch === '\n') this.fail('Unterminated string.', { kind: 'EOF', value: '', start });
      if (ch === '"') break;
      if (ch === '\\') {
        const next = src[i + 1] ?? '';
        if (next === 'u') {
          const hex = src.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex))
            this.fail(`Invalid Unicode escape sequence: \\u${hex}.`, { kind: 'EOF', value, start });
          value += String.fromCharCode(Number.parseInt(hex, 16));
          i += 6;
          continue;
        }
        const escaped = ESCAPES[next];
        if (escaped === undefined)
          this.fail(`Invalid character escape sequence: \\${next}.`, { kind: 'EOF', value, start });
        value += escaped;
        i += 2;
        continue;
      }
      value += ch;
      i++;
    }
    this.pos = i + 1;
    return { kind: 'String', value, start };
  }
}

function describe(token: Token): string {
  if (token.kind === 'EOF') return '<EOF>';
  if (token.kind === 'Punct' || token.kind === 'Name') return `"${token.value}"`;
  return `${token.kind} "${token.value}"`;
}
