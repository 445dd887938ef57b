import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H100, startTestSim, type TestSim } from './harness.js';

/**
 * What a real GraphQL server (graphql-js, as behind RunPod's Apollo server) answers beyond the
 * happy path: errors with their locations in the document, variables coerced to their declared
 * types or refused, and the whole executable language (fragments, directives, introspection).
 * Every request here only reads, so one simulator serves them all.
 */

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(async () => {
  await t?.sim.close();
});

interface ErrorEntry {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  path?: Array<string | number>;
  extensions: { code: string };
}

interface Envelope {
  data?: Record<string, unknown> | null;
  errors?: ErrorEntry[];
}

async function post(body: Record<string, unknown>): Promise<{ status: number; body: Envelope }> {
  const res = await t.call('/graphql', { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Envelope };
}

const gql = (query: string, variables?: Record<string, unknown>) => post({ query, variables });

describe('simulator GraphQL: errors located in the document', () => {
  it('names an unknown field, its type, the nearest field and where it stands', async () => {
    const { status, body } = await gql('query {\n  myself {\n    pods { id bogus }\n  }\n}');
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [
        {
          message: 'Cannot query field "bogus" on type "Pod". Did you mean "ports"?',
          locations: [{ line: 3, column: 15 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('reports every validation error at once, each at its place', async () => {
    const { status, body } = await gql('{ nope { id }\n  pod(input: {podId: "x", extra: 1}) { id } }');
    expect(status).toBe(400);
    expect(body.errors?.map(({ message, locations }) => ({ message, locations }))).toEqual([
      { message: 'Cannot query field "nope" on type "Query".', locations: [{ line: 1, column: 3 }] },
      {
        message: 'Field "extra" is not defined by type "PodFilter".',
        locations: [{ line: 2, column: 27 }],
      },
    ]);
  });

  it.each([
    ['{\n  pod(input: ) { id } }', 'Syntax Error: Unexpected ")".', 2, 14],
    ['{ myself { pods { id }', 'Syntax Error: Expected Name, found <EOF>.', 1, 23],
    ['{ pod(input: {podId: "open) { id } }', 'Syntax Error: Unterminated string.', 1, 37],
    ['{ pod(input: {podId: "\\x"}) { id } }', 'Syntax Error: Invalid character escape sequence: "\\x".', 1, 23],
    ['{ myself ? }', 'Syntax Error: Unexpected character: "?".', 1, 10],
  ])('answers a syntax error in %j with its message and location', async (query, message, line, column) => {
    const { status, body } = await gql(query);
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [{ message, locations: [{ line, column }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
    });
  });

  it('locates a field error too, beside its path and the partial data', async () => {
    const { status, body } = await gql('{ myself { id }\n  pod(input: {podId: "nope"}) { id } }');
    expect(status).toBe(200);
    expect(body).toEqual({
      errors: [
        {
          message: 'pod not found: nope',
          locations: [{ line: 2, column: 3 }],
          path: ['pod'],
          extensions: { code: 'RUNPOD' },
        },
      ],
      data: { myself: { id: 'user-sim' }, pod: null },
    });
  });

  it('refuses an operation name the document lacks, or none among several', async () => {
    const two = 'query A { myself { id } } query B { myself { email } }';
    expect(await post({ query: two, operationName: 'B' })).toEqual({
      status: 200,
      body: { data: { myself: { email: 'sim@example.com' } } },
    });
    const unnamed = await post({ query: two });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.errors?.[0]?.message).toBe(
      'Must provide operation name if query contains multiple operations.',
    );
    const unknown = await post({ query: two, operationName: 'C' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors?.[0]?.message).toBe('Unknown operation named "C".');
  });
});

describe('simulator GraphQL: variables coerced to their types', () => {
  const STOCK = `query Stock($ids: [String], $count: Int = 1, $cloud: GpuLowestPriceInput) {
    gpuTypes(input: {ids: $ids}) { id
      count: lowestPrice(input: {gpuCount: $count, secureCloud: true}) { availableGpuCounts }
      cloud: lowestPrice(input: $cloud) { uninterruptablePrice } } }`;

  it('takes a single value for a list, and a default for a variable not given', async () => {
    const { status, body } = await gql(STOCK, { ids: H100, cloud: { gpuCount: 1, secureCloud: true } });
    expect(status).toBe(200);
    expect(body).toEqual({
      data: {
        gpuTypes: [{ id: H100, count: { availableGpuCounts: [1, 2, 4, 8] }, cloud: { uninterruptablePrice: 2.99 } }],
      },
    });
  });

  it.each([
    [{ count: 'many' }, 'Variable "$count" got invalid value "many"; Int cannot represent non-integer value: "many"'],
    [{ count: 2.5 }, 'Variable "$count" got invalid value 2.5; Int cannot represent non-integer value: 2.5'],
    [{ ids: [7] }, 'Variable "$ids" got invalid value 7 at "ids[0]"; String cannot represent a non string value: 7'],
    [
      { cloud: { gpuCount: 1, bogus: true } },
      'Variable "$cloud" got invalid value { gpuCount: 1, bogus: true }; Field "bogus" is not defined by type "GpuLowestPriceInput".',
    ],
  ])('refuses %j naming the variable, the value and the type', async (variables, message) => {
    const { status, body } = await gql(STOCK, variables);
    expect(status).toBe(400);
    expect(body).toEqual({
      errors: [{ message, locations: [expect.any(Object)], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });

  it('refuses a variable used where its type does not fit', async () => {
    const { status, body } = await gql('query Q($id: Int) { pod(input: {podId: $id}) { id } }', { id: 1 });
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toBe('Variable "$id" of type "Int" used in position expecting type "String!".');
  });
});

describe('simulator GraphQL: the whole executable language', () => {
  it('answers fragments, inline fragments and directives as a real server does', async () => {
    const { status, body } = await gql(
      `query P($withName: Boolean!) { pod(input: {podId: "pod-train-1"}) { ...Ids ... on Pod { gpuCount }
        name @include(if: $withName) costPerHr @skip(if: true) __typename } }
      fragment Ids on Pod { id desiredStatus }`,
      { withName: false },
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      data: { pod: { id: 'pod-train-1', desiredStatus: 'RUNNING', gpuCount: 2, __typename: 'Pod' } },
    });
  });

  it('answers introspection from the SDL', async () => {
    const { body } = await gql('{ __type(name: "PodResumeInput") { inputFields { name type { kind name } } } }');
    expect(body).toEqual({
      data: {
        __type: {
          inputFields: [
            { name: 'podId', type: { kind: 'NON_NULL', name: null } },
            { name: 'gpuCount', type: { kind: 'SCALAR', name: 'Int' } },
          ],
        },
      },
    });
  });
});
