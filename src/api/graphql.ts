import { z } from 'zod';
import type { Clock } from '../clock.js';
import { ApiError, type ApiErrorKind, NoDataError } from './errors.js';
import type { HttpTransport } from './http.js';
import { type ParsedList, parseBody, parseEach } from './parse.js';
import type { CallOptions } from './rest.js';
import {
  GraphqlEnvelope,
  type GraphqlErrorEntry,
  GraphqlGpuType,
  GraphqlGpuTypesData,
  GraphqlPod,
  GraphqlPodStopData,
  type GraphqlPodStopResult,
  GraphqlPodsData,
} from './schemas.js';

const PODS_WITH_RUNTIME = `query podsWithRuntime {
  myself { pods { id name runtime { uptimeInSeconds
    gpus { id gpuUtilPercent memoryUtilPercent }
    container { cpuPercent memoryPercent } } } }
}`;

// Both clouds in one request: `lowestPrice` twice under aliases, each with its own secureCloud.
const GPU_TYPES_STOCK = `query gpuTypesStock($gpuCount: Int!) {
  gpuTypes { id displayName memoryInGb
    secure: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: true }) {
      stockStatus uninterruptablePrice availableGpuCounts }
    community: lowestPrice(input: { gpuCount: $gpuCount, secureCloud: false }) {
      stockStatus uninterruptablePrice availableGpuCounts } }
}`;

const POD_STOP = `mutation podStop($podId: String!) {
  podStop(input: { podId: $podId }) { id desiredStatus }
}`;

/**
 * RunPod retires GraphQL "early 2027" (runpod/docs sdks/graphql/configurations.mdx, api-notes §1).
 * Before this instant a 404 cannot be the retirement, so it is a wrong URL and fails loudly.
 */
export const GRAPHQL_RETIREMENT_EARLIEST = Date.UTC(2027, 0, 1);

/**
 * The deprecated GraphQL API, only for what REST v2 lacks: Pod runtime utilisation as a
 * fallback, GPU stock status, and podStop. Once RunPod retires it (HTTP 410, or 404 after the
 * documented retirement date) every call is a NoDataError, not a failure.
 */
export class GraphqlClient {
  constructor(
    private readonly http: HttpTransport,
    private readonly clock: Clock,
  ) {}

  /** Pods with their runtime, read one by one as the REST lists are: a Pod its schema rejects is named in `rejected`. */
  async podsWithRuntime(call?: CallOptions): Promise<ParsedList<GraphqlPod>> {
    const data = await this.run('podsWithRuntime', PODS_WITH_RUNTIME, {}, GraphqlPodsData, true, call);
    return parseEach(GraphqlPod, 'data.myself.pods', data.myself.pods);
  }

  /**
   * Every GPU type's lowest price and stock for `gpuCount` GPUs, secure and community cloud at
   * once; a type its schema rejects is named in `rejected` and the others are kept.
   */
  async gpuTypesStock(input: { gpuCount: number }, call?: CallOptions): Promise<ParsedList<GraphqlGpuType>> {
    const data = await this.run('gpuTypesStock', GPU_TYPES_STOCK, input, GraphqlGpuTypesData, true, call);
    return parseEach(GraphqlGpuType, 'data.gpuTypes', data.gpuTypes);
  }

  /** Never retried on 5xx or timeouts: the stop may have happened. */
  async podStop(podId: string, call?: CallOptions): Promise<GraphqlPodStopResult> {
    const data = await this.run('podStop', POD_STOP, { podId }, GraphqlPodStopData, false, call);
    return data.podStop;
  }

  /** `schema` reads the whole envelope, so a contract error's path reads `data.myself.pods[0]…`. */
  private async run<T>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    schema: z.ZodType<{ data: T }>,
    idempotent: boolean,
    call: CallOptions | undefined,
  ): Promise<T> {
    let response: Awaited<ReturnType<HttpTransport['send']>>;
    try {
      response = await this.http.send({
        target: 'graphql',
        method: 'POST',
        route: '/graphql',
        body: { query, variables },
        idempotent,
        label: operation,
        signal: call?.signal,
      });
    } catch (error) {
      throw retirementOf(error, this.clock.now());
    }
    const op = response.op;
    const envelope = parseBody(GraphqlEnvelope, response.body, op);
    if (envelope.errors && envelope.errors.length > 0) throw graphqlError(op, envelope.errors);
    return parseBody(schema, envelope, op).data;
  }
}

/**
 * 410 Gone is RunPod saying so; a 404 only counts once the retirement date has passed, because
 * before it the likelier reading is a mistyped URL, and calling that "retired" hides it forever.
 */
function retirementOf(error: unknown, now: number): unknown {
  if (!(error instanceof ApiError)) return error;
  const retired = error.status === 410 || (error.status === 404 && now >= GRAPHQL_RETIREMENT_EARLIEST);
  if (retired) return new NoDataError(error.op, `GraphQL retired or gone (HTTP ${error.status})`, error.status);
  if (error.status !== 404) return error;
  const where = error.url ? ` at ${error.url}` : '';
  return new ApiError({
    ...error,
    kind: 'not_found',
    retryAfterMs: undefined,
    note: `nothing found${where}, and GraphQL is not retired before early 2027: check api.graphqlBaseUrl (or the account's graphqlBaseUrl)`,
    cause: error,
  });
}

function graphqlError(op: string, errors: GraphqlErrorEntry[]): ApiError {
  const [first] = errors;
  const code = first?.extensions?.code;
  return new ApiError({
    kind: kindForGraphql(code, first?.message),
    op,
    title: code,
    detail: first?.message,
    errors: errors.slice(1).map((entry) => entry.message),
    bodySnippet: JSON.stringify({ errors }),
  });
}

function kindForGraphql(code: string | undefined, message: string | undefined): ApiErrorKind {
  switch (code?.toUpperCase()) {
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
      return 'auth';
    case 'INTERNAL_SERVER_ERROR':
      return 'transient';
    case 'NOT_FOUND':
      return 'not_found';
    case 'RATE_LIMITED':
    case 'TOO_MANY_REQUESTS':
      return 'rate_limited';
    default:
      return message?.trim().toLowerCase() === 'unauthorized' ? 'auth' : 'client';
  }
}
