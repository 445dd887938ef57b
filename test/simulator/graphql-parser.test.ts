import { describe, expect, it } from 'vitest';
import { GraphQLSyntaxError, parseDocument } from '../../src/simulator/graphql-parser.js';

describe('GraphQL parser', () => {
  it('reads operations, variables with defaults, aliases and every kind of literal', () => {
    const [op] = parseDocument(`
      # runpodctl style, with commas and a comment
      mutation resume($podId: String!, $count: Int = 2, $ids: [String!]) {
        r: podResume(input: { podId: $podId, gpuCount: $count, f: -1.5e2, s: "a\\"b\\u00e9", b: """ block """,
                              t: true, n: null, e: HIGH, l: [1, 2] }) { id }
      }`);
    expect(op?.operation).toBe('mutation');
    expect(op?.name).toBe('resume');
    expect(op?.variables).toEqual([
      { name: 'podId', type: { kind: 'Named', name: 'String', nonNull: true }, defaultValue: undefined },
      { name: 'count', type: { kind: 'Named', name: 'Int', nonNull: false }, defaultValue: { kind: 'Int', value: 2 } },
      {
        name: 'ids',
        type: { kind: 'List', of: { kind: 'Named', name: 'String', nonNull: true }, nonNull: false },
        defaultValue: undefined,
      },
    ]);
    const field = op?.selections[0];
    expect(field?.alias).toBe('r');
    expect(field?.name).toBe('podResume');
    expect(field?.args[0]?.value).toEqual({
      kind: 'Object',
      fields: [
        { name: 'podId', value: { kind: 'Variable', name: 'podId' } },
        { name: 'gpuCount', value: { kind: 'Variable', name: 'count' } },
        { name: 'f', value: { kind: 'Float', value: -150 } },
        { name: 's', value: { kind: 'String', value: 'a"bé' } },
        { name: 'b', value: { kind: 'String', value: 'block' } },
        { name: 't', value: { kind: 'Boolean', value: true } },
        { name: 'n', value: { kind: 'Null' } },
        { name: 'e', value: { kind: 'Enum', value: 'HIGH' } },
        {
          name: 'l',
          value: {
            kind: 'List',
            values: [
              { kind: 'Int', value: 1 },
              { kind: 'Int', value: 2 },
            ],
          },
        },
      ],
    });
    expect(field?.selections).toEqual([{ alias: undefined, name: 'id', args: [], selections: undefined }]);
  });

  it('reads the query shorthand and several operations', () => {
    expect(parseDocument('{ myself { id } }')[0]?.operation).toBe('query');
    expect(parseDocument('query A { a } query B { b }').map((op) => op.name)).toEqual(['A', 'B']);
  });

  it.each([
    ['{ myself { id }', 'Syntax Error: Expected Name, found <EOF>.', 1, 16],
    ['{\n  pods(input: ) { id } }', 'Syntax Error: Unexpected ")".', 2, 15],
    ['{ a(s: "open) }', 'Syntax Error: Unterminated string.', 1, 8],
    ['{ a(s: "\\x") }', 'Syntax Error: Invalid character escape sequence: \\x.', 1, 8],
    ['{ ...Frag }', 'Syntax Error: fragments are not supported by the simulator', 1, 3],
    ['fragment F on Pod { id }', 'Syntax Error: fragments are not supported by the simulator', 1, 1],
    ['{ a @include(if: true) }', 'Syntax Error: directives are not supported by the simulator', 1, 5],
    ['{ a ? }', 'Syntax Error: Unexpected character "?".', 1, 5],
    ['', 'Syntax Error: Expected Name, found <EOF>.', 1, 1],
  ])('rejects %j with a located syntax error', (source, message, line, column) => {
    let caught: unknown;
    try {
      parseDocument(source);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GraphQLSyntaxError);
    expect(caught).toMatchObject({ message, line, column });
  });
});
