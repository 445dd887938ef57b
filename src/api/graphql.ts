import { z } from 'zod';
import { ApiError, type ApiErrorKind, NoDataError } from './errors.js';
import type { HttpTransport } from './http.js';
import { parseBody } from './parse.js';
import type { CallOptions } from './rest.js';
import {
  GraphqlEnvelope,
  type GraphqlErrorEntry,
  type GraphqlGpuType,
  GraphqlGpuTypesData,
  type GraphqlPod,
  GraphqlPodStopData,
  type GraphqlPodStopResult,
  GraphqlPodsData,
} from './schemas.js';

const PODS_WITH_RUNTIME = `query podsWithRuntime {
  myself { pods { id name runtime { uptimeInSeconds
    gpus { id gpuUtilPercent memoryUtilPercent }
    container { cpuPercent memoryPercent } } } }
}`;

const GPU_TYPES_STOCK = `query gpuTypesStock($gpuCount: Int!, $secureCloud: Boolean) {
  gpuTypes { id displayName memoryInGb
    lowestPrice(input: { gpuCount: $gpuCount, secureCloud: $secureCloud }) {
      stockStatus uninterruptablePrice availableGpuCounts } }
}`;

const POD_STOP = `mutation podStop($podId: String!) {
  podStop(input: { podId: $podId }) { id desiredStatus }
}`;

/**
 * The deprecated GraphQL API, only for what REST v2 lacks: Pod runtime utilisation as a
 * fallback, GPU stock status, and podStop. Once RunPod retires it (HTTP 410 or 404) every call
 * is a NoDataError, not a failure.
 */
export class GraphqlClient {
  constructor(private readonly http: HttpTransport) {}

  async podsWithRuntime(call?: CallOptions): Promise<GraphqlPod[]> {
    const data = await this.run('podsWithRuntime', PODS_WITH_RUNTIME, {}, GraphqlPodsData, true, call);
    return data.myself.pods;
  }

  async gpuTypesStock(
    input: { gpuCount: number; secureCloud: boolean },
    call?: CallOptions,
  ): Promise<GraphqlGpuType[]> {
    const data = await this.run('gpuTypesStock', GPU_TYPES_STOCK, input, GraphqlGpuTypesData, true, call);
    return data.gpuTypes;
  }

  /** Never retried on 5xx or timeouts: the stop may have happened. */
  async podStop(podId: string, call?: CallOptions): Promise<GraphqlPodStopResult> {
    const data = await this.run('podStop', POD_STOP, { podId }, GraphqlPodStopData, false, call);
    return data.podStop;
  }

  private async run<S extends z.ZodType>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    schema: S,
    idempotent: boolean,
    call: CallOptions | undefined,
  ): Promise<z.output<S>> {
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
      if (error instanceof ApiError && (error.status === 410 || error.status === 404)) {
        throw new NoDataError(error.op, `GraphQL retired or gone (HTTP ${error.status})`, error.status);
      }
      throw error;
    }
    const envelope = parseBody(GraphqlEnvelope, response.body, response.op);
    if (envelope.errors && envelope.errors.length > 0) throw graphqlError(response.op, envelope.errors);
    // Parsed inside the envelope so a contract error's path reads `data.myself.pods[0]…`.
    const parsed = parseBody(z.looseObject({ data: schema }), envelope, response.op);
    return parsed.data as z.output<S>;
  }
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
