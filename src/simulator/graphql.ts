import { buildSchema, type DocumentNode, executeSync, GraphQLError, getOperationAST, parse, validate } from 'graphql';
import { type GraphqlContext, runpodRoot } from './graphql-resolvers.js';
import { RUNPOD_SDL } from './graphql-sdl.js';
import type { SimReply } from './reply.js';

export interface GraphqlRequest extends GraphqlContext {
  method: string;
  /** The parsed JSON body, or undefined when there was none. */
  body: unknown;
  /** A read-only key may query but not mutate. */
  readOnly: boolean;
}

const schema = buildSchema(RUNPOD_SDL);

/**
 * Answers one POST /graphql as RunPod's Apollo server does: a document that does not parse or
 * validate, and variables or an operation name that do not fit it, are HTTP 400 with `errors[]`
 * and no `data`; resolver failures are HTTP 200 with partial `data`.
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
  let document: DocumentNode;
  try {
    document = parse(body.query);
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    return errorsReply(400, 'GRAPHQL_PARSE_FAILED', [error]);
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0) return errorsReply(400, 'GRAPHQL_VALIDATION_FAILED', invalid);
  const operationName = typeof body.operationName === 'string' ? body.operationName : undefined;
  const operation = getOperationAST(document, operationName) ?? undefined;
  if (operation !== undefined && schema.getRootType(operation.operation) === undefined) {
    const error = new GraphQLError(`Schema is not configured to execute ${operation.operation} operation.`, {
      nodes: operation,
    });
    return errorsReply(400, 'GRAPHQL_VALIDATION_FAILED', [error]);
  }
  if (operation?.operation === 'mutation' && request.readOnly) {
    return failure(403, 'FORBIDDEN', 'access denied: this API key is read-only');
  }
  const result = executeSync({
    schema,
    document,
    rootValue: runpodRoot,
    contextValue: { world: request.world, nowMs: request.nowMs } satisfies GraphqlContext,
    variableValues: body.variables as Record<string, unknown> | null | undefined,
    operationName,
  });
  // No `data` at all: the variables or the operation name did not fit the document.
  if (!('data' in result)) return errorsReply(400, 'GRAPHQL_VALIDATION_FAILED', result.errors ?? []);
  if (result.errors === undefined) return envelope(200, { data: result.data });
  return envelope(200, { errors: result.errors.map((e) => entry(e, 'INTERNAL_SERVER_ERROR')), data: result.data });
}

/** An error as RunPod's Apollo server answers it: `extensions.code` always set. */
function entry(error: GraphQLError, code: string): Record<string, unknown> {
  return { ...error.toJSON(), extensions: { code, ...error.extensions } };
}

function errorsReply(status: number, code: string, errors: readonly GraphQLError[]): SimReply {
  return envelope(status, { errors: errors.map((error) => entry(error, code)) });
}

/** A whole-request failure in the GraphQL envelope (no `data`). */
export function failure(status: number, code: string, message: string): SimReply {
  return envelope(status, { errors: [{ message, extensions: { code } }] });
}

/** GraphQL answers JSON whatever the status, errors included. */
function envelope(status: number, body: unknown): SimReply {
  return { status, body, headers: { 'Content-Type': 'application/json' } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
