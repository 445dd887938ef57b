import { execute, validate } from './graphql-exec.js';
import { GraphQLSyntaxError, type OperationNode, parseDocument } from './graphql-parser.js';
import { type GraphqlContext, runpodSchema } from './graphql-schema.js';
import { boundedMemo } from './memo.js';
import type { SimReply } from './reply.js';
import { keepBytes, keptBytes } from './reply-cache.js';

export interface GraphqlRequest extends GraphqlContext {
  method: string;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** A read-only key may query but not mutate. */
  readOnly: boolean;
}

/**
 * Answers one POST /graphql as RunPod's Apollo server does: parse and validation failures are
 * HTTP 400 with `errors[]` and no `data`; resolver failures are HTTP 200 with partial `data`.
 */
export function handleGraphql(request: GraphqlRequest): SimReply {
  if (request.method !== 'POST') {
    const reply = failure(405, 'METHOD_NOT_ALLOWED', 'GraphQL takes POST only.');
    return { ...reply, headers: { ...reply.headers, Allow: 'POST' } };
  }
  const body = request.body;
  if (!isRecord(body) || typeof body.query !== 'string' || body.query.trim() === '') {
    return failure(400, 'BAD_REQUEST', 'POST body must be JSON with a non-empty "query" string.');
  }
  if (body.variables !== undefined && body.variables !== null && !isRecord(body.variables)) {
    return failure(400, 'BAD_REQUEST', '"variables" must be a JSON object.');
  }
  let operations: OperationNode[];
  try {
    operations = parsed(body.query);
  } catch (error) {
    if (!(error instanceof GraphQLSyntaxError)) throw error;
    return failure(400, 'GRAPHQL_PARSE_FAILED', error.message, {
      locations: [{ line: error.line, column: error.column }],
    });
  }
  const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
  const operation = selectOperation(operations, operationName);
  if (typeof operation === 'string') return failure(400, 'GRAPHQL_VALIDATION_FAILED', operation);
  if (readsStockOnly(operation)) {
    return stockReply(request, operation, { query: body.query, operationName, variables: body.variables });
  }
  return answer(request, operation, body.variables);
}

/** Validates and runs one operation: the answer to any request that got this far. */
function answer(request: GraphqlRequest, operation: OperationNode, variables: unknown): SimReply {
  const { errors, args } = validate(runpodSchema, operation, (variables ?? {}) as Record<string, unknown>);
  if (errors.length > 0) {
    return envelope(400, {
      errors: errors.map((message) => ({ message, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
    });
  }
  if (operation.operation === 'mutation' && request.readOnly) {
    return failure(403, 'FORBIDDEN', 'access denied: this API key is read-only');
  }
  const result = execute(runpodSchema, operation, args, { world: request.world, nowMs: request.nowMs });
  return envelope(200, result.errors.length > 0 ? result : { data: result.data });
}

/**
 * A query of GPU types alone (what the daemon's stock collector asks every few minutes): its
 * answer is a function of the request and of the GPU types' availability, so a clean answer
 * (no errors) is kept as its bytes per request text under the world's availability version, and
 * served again until availability changes. Validation is a function of the request too, so a
 * kept answer stands for it; a request with errors goes the whole way every time.
 */
function stockReply(
  request: GraphqlRequest,
  operation: OperationNode,
  key: { query: string; operationName: string | undefined; variables: unknown },
): SimReply {
  const text = `graphql\n${key.operationName ?? ''}\n${JSON.stringify(key.variables ?? null)}\n${key.query}`;
  const stamp = request.world.availabilityVersion(request.nowMs);
  const kept = keptBytes(request.world, text, stamp);
  if (kept !== undefined) return { status: 200, bytes: kept, headers: { 'Content-Type': 'application/json' } };
  const reply = answer(request, operation, key.variables);
  if (reply.status !== 200 || 'errors' in (reply.body as object)) return reply;
  const bytes = Buffer.from(JSON.stringify(reply.body));
  keepBytes(request.world, text, stamp, bytes);
  return { status: 200, bytes, headers: { 'Content-Type': 'application/json' } };
}

function readsStockOnly(operation: OperationNode): boolean {
  return operation.operation === 'query' && operation.selections.every((field) => field.name === 'gpuTypes');
}

/**
 * Documents parsed, by their text: a client sends the same few queries over and over. Nothing
 * downstream changes a parsed document (validation keeps its findings beside it), so one parse
 * serves every request with the same text. Bounded: a client sending ever new texts only costs
 * a parse each, as before.
 */
const parsed: (query: string) => OperationNode[] = boundedMemo(64, parseDocument);

function selectOperation(operations: OperationNode[], name: string | undefined): OperationNode | string {
  if (name !== undefined) {
    return operations.find((op) => op.name === name) ?? `Unknown operation named "${name}".`;
  }
  if (operations.length > 1) return 'Must provide operation name if query contains multiple operations.';
  return operations[0] ?? 'Must provide an operation.';
}

/** A whole-request failure in the GraphQL envelope (no `data`). */
export function failure(status: number, code: string, message: string, extra: Record<string, unknown> = {}): SimReply {
  return envelope(status, { errors: [{ message, ...extra, extensions: { code } }] });
}

/** GraphQL answers JSON whatever the status, errors included. */
function envelope(status: number, body: unknown): SimReply {
  return { status, body, headers: { 'Content-Type': 'application/json' } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
