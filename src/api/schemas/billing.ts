import { z } from 'zod';
import { DateTime, Int } from './common.js';

export const BillingBucketSize = z.enum(['hour', 'day', 'week', 'month', 'year']);
export type BillingBucketSize = z.infer<typeof BillingBucketSize>;

/** Every record is one half-open bucket [startTime, endTime). Amounts are USD. */
const timeRange = { startTime: DateTime, endTime: DateTime };
const usd = z.number();

const BillingQuery = z.looseObject({ ...timeRange, bucketSize: BillingBucketSize });

const BillingAmounts = {
  totalAmount: usd,
  podGpuAmount: usd,
  podCpuAmount: usd,
  podDiskAmount: usd,
  serverlessGpuAmount: usd,
  serverlessCpuAmount: usd,
  serverlessDiskAmount: usd,
  serverlessFeeAmount: usd,
  storageStandardAmount: usd,
  storageHighPerformanceAmount: usd,
  endpointAmount: usd,
  clusterGpuAmount: usd,
  clusterDiskAmount: usd,
  clusterNetworkingAmount: usd,
};
const PodBillingAmounts = { totalAmount: usd, gpuAmount: usd, cpuAmount: usd, diskAmount: usd };
const ServerlessBillingAmounts = { totalAmount: usd, gpuAmount: usd, cpuAmount: usd, diskAmount: usd, feeAmount: usd };
const EndpointBillingAmounts = { totalAmount: usd };
const NetworkVolumeBillingAmounts = { totalAmount: usd, standardAmount: usd, highPerformanceAmount: usd };
const ClusterBillingAmounts = { totalAmount: usd, gpuAmount: usd, diskAmount: usd, networkingAmount: usd };

/** `{ records, metadata: { query, recordCount, totals, unique<X>Count? } }`, one shape per route. */
function billingResponse<A extends z.ZodRawShape, I extends z.ZodRawShape, M extends z.ZodRawShape>(
  amounts: A,
  idField: I,
  metadataExtra: M,
) {
  return z.looseObject({
    records: z.array(z.looseObject({ ...timeRange, ...amounts, ...idField })),
    metadata: z.looseObject({
      query: BillingQuery.extend(nullableAndOptional(idField)),
      recordCount: Int,
      totals: z.looseObject(amounts),
      ...metadataExtra,
    }),
  });
}

/** The echoed query carries the filter id as `string | null`, or not at all. */
function nullableAndOptional<S extends z.ZodRawShape>(shape: S) {
  return Object.fromEntries(Object.keys(shape).map((key) => [key, z.string().nullable().optional()])) as {
    [K in keyof S]: z.ZodOptional<z.ZodNullable<z.ZodString>>;
  };
}

export const ListBillingResponse = billingResponse(BillingAmounts, {}, {});
export type ListBillingResponse = z.infer<typeof ListBillingResponse>;

export const ListPodBillingResponse = billingResponse(
  PodBillingAmounts,
  { podId: z.string() },
  { uniquePodCount: Int },
);
export type ListPodBillingResponse = z.infer<typeof ListPodBillingResponse>;

export const ListServerlessBillingResponse = billingResponse(
  ServerlessBillingAmounts,
  { serverlessId: z.string() },
  { uniqueServerlessCount: Int },
);
export type ListServerlessBillingResponse = z.infer<typeof ListServerlessBillingResponse>;

/** Public Endpoint billing (`/billing/endpoints`); serverless billing is `/billing/serverless`. */
export const ListEndpointBillingResponse = billingResponse(EndpointBillingAmounts, {}, {});
export type ListEndpointBillingResponse = z.infer<typeof ListEndpointBillingResponse>;

export const ListNetworkVolumeBillingResponse = billingResponse(
  NetworkVolumeBillingAmounts,
  { networkVolumeId: z.string() },
  { uniqueNetworkVolumeCount: Int },
);
export type ListNetworkVolumeBillingResponse = z.infer<typeof ListNetworkVolumeBillingResponse>;

export const ListClusterBillingResponse = billingResponse(
  ClusterBillingAmounts,
  { clusterId: z.string() },
  { uniqueClusterCount: Int },
);
export type ListClusterBillingResponse = z.infer<typeof ListClusterBillingResponse>;
