import { z } from 'zod';
import { duration, httpUrl, withMs } from '../fields.js';

/** `api`: how podwarden talks to RunPod, shared by every account. */
export const apiSection = z
  .strictObject({
    restBaseUrl: httpUrl().default('https://api.runpod.io/v2'),
    graphqlBaseUrl: httpUrl().default('https://api.runpod.io/graphql'),
    /** GraphQL takes the key as `Authorization: Bearer` or as the `api_key` query parameter. */
    graphqlAuth: z.enum(['header', 'query']).default('header'),
    graphql: z
      .strictObject({ enabled: z.boolean().default(true) })
      .prefault({})
      .describe('GraphQL, used only for what REST v2 lacks: GPU stock status.'),
    timeouts: withMs(
      { connect: duration().prefault('10s'), headers: duration().prefault('30s'), body: duration().prefault('60s') },
      ['connect', 'headers', 'body'],
    )
      .prefault({})
      .describe('How long each stage of a request to RunPod may take.'),
    retries: withMs(
      {
        max: z.int().min(0).max(10).default(3),
        baseDelay: duration().prefault('1s'),
        maxDelay: duration().prefault('30s').describe('The longest backoff between two attempts.'),
      },
      ['baseDelay', 'maxDelay'],
    ).prefault({}),
    /** Requests in flight at once, per account. */
    concurrency: z.int().min(1).max(32).default(4),
  })
  .prefault({});
