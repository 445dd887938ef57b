import { z } from 'zod';
import { Int } from './common.js';
import type { PodRuntime } from './pod.js';

/** One entry of a GraphQL `errors[]` envelope; clients read `message` and `extensions.code`. */
export const GraphqlErrorEntry = z.looseObject({
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  extensions: z.looseObject({ code: z.string().optional() }).nullable().optional(),
});
export type GraphqlErrorEntry = z.infer<typeof GraphqlErrorEntry>;

export const GraphqlEnvelope = z.looseObject({
  data: z.unknown().optional(),
  errors: z.array(GraphqlErrorEntry).optional(),
});

/**
 * GraphQL's Pod runtime, mapped to the REST v2 `PodRuntime` shape so rules see one shape
 * whichever API answered: uptimeInSeconds → uptime, gpuUtilPercent → util,
 * memoryUtilPercent → memoryUtil, container.cpuPercent → cpu.util, container.memoryPercent → memory.util.
 */
export const GraphqlPodRuntime = z
  .looseObject({
    uptimeInSeconds: z.number().nullable().optional(),
    gpus: z
      .array(
        z.looseObject({
          id: z.string().nullable().optional(),
          gpuUtilPercent: z.number().nullable().optional(),
          memoryUtilPercent: z.number().nullable().optional(),
        }),
      )
      .nullable()
      .optional(),
    container: z
      .looseObject({
        cpuPercent: z.number().nullable().optional(),
        memoryPercent: z.number().nullable().optional(),
      })
      .nullable()
      .optional(),
  })
  .transform(
    (raw): PodRuntime => ({
      uptime: raw.uptimeInSeconds ?? null,
      gpus:
        raw.gpus?.map((gpu) => ({ util: gpu.gpuUtilPercent ?? null, memoryUtil: gpu.memoryUtilPercent ?? null })) ??
        null,
      cpu: raw.container ? { util: raw.container.cpuPercent ?? null } : null,
      memory: raw.container ? { util: raw.container.memoryPercent ?? null } : null,
      ports: [],
    }),
  );

/** A field that may be absent or null, read as `fallback` then: the core never sees undefined. */
function orElse<S extends z.ZodType, F>(schema: S, fallback: F) {
  return schema
    .nullable()
    .optional()
    .transform((value) => value ?? fallback);
}

export const GraphqlPod = z.looseObject({
  id: z.string(),
  name: z.string().nullable(),
  runtime: orElse(GraphqlPodRuntime, null),
});
export type GraphqlPod = z.infer<typeof GraphqlPod>;

/** The answer of the Pods query; each Pod is parsed on its own (GraphqlPod), so one bad Pod hides no other. */
export const GraphqlPodsData = z.looseObject({
  data: z.looseObject({ myself: z.looseObject({ pods: z.array(z.unknown()) }) }),
});

/**
 * `stockStatus` is documented as High/Medium/Low/None; clients also meet null, "" and "Out",
 * so it stays a string for the capacity rules to interpret.
 */
export const GpuLowestPrice = z.looseObject({
  stockStatus: orElse(z.string(), null),
  uninterruptablePrice: orElse(z.number(), null),
  // A new array for each answer: a shared fallback would be one mutable value for every GPU type.
  availableGpuCounts: z
    .array(Int)
    .nullable()
    .optional()
    .transform((value) => value ?? []),
});

export const GraphqlGpuType = z.looseObject({
  id: z.string(),
  displayName: z.string().nullable().optional(),
  memoryInGb: z.number().nullable().optional(),
  /** `lowestPrice` with secureCloud true and false, aliased so one request reads both clouds. */
  secure: orElse(GpuLowestPrice, null),
  community: orElse(GpuLowestPrice, null),
});
export type GraphqlGpuType = z.infer<typeof GraphqlGpuType>;

/** The answer of the GPU types query; each type is parsed on its own (GraphqlGpuType). */
export const GraphqlGpuTypesData = z.looseObject({ data: z.looseObject({ gpuTypes: z.array(z.unknown()) }) });

export const GraphqlPodStopData = z.looseObject({
  data: z.looseObject({ podStop: z.looseObject({ id: z.string(), desiredStatus: z.string() }) }),
});
export type GraphqlPodStopResult = z.infer<typeof GraphqlPodStopData>['data']['podStop'];
