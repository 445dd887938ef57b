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

/**
 * `{ records, metadata: { query, recordCount, totals, unique<X>Count? } }`, one shape per route;
 * a route that bills resources names them in `idField` and counts them in `unique<Name>Count`.
 */
function billingResponse<A extends z.ZodRawShape, I extends string = never, N extends string = never>(
  amounts: A,
  idField?: I,
  name?: N,
) {
  const id = idField === undefined ? {} : { [idField]: z.string() };
  // The echoed query carries the filter id as `string | null`, or not at all.
  const echoed = idField === undefined ? {} : { [idField]: z.string().nullable().optional() };
  const count = name === undefined ? {} : { [`unique${name}Count`]: Int };
  return z.looseObject({
    records: z.array(z.looseObject({ ...timeRange, ...amounts, ...(id as Record<I, z.ZodString>) })),
    metadata: z.looseObject({
      query: BillingQuery.extend(echoed as Record<I, z.ZodOptional<z.ZodNullable<z.ZodString>>>),
      recordCount: Int,
      totals: z.looseObject(amounts),
      ...(count as Record<`unique${N}Count`, typeof Int>),
    }),
  });
}

export const ListBillingResponse = billingResponse(BillingAmounts);
export const ListPodBillingResponse = billingResponse(PodBillingAmounts, 'podId', 'Pod');
export const ListServerlessBillingResponse = billingResponse(ServerlessBillingAmounts, 'serverlessId', 'Serverless');
/** Public Endpoint billing (`/billing/endpoints`); serverless billing is `/billing/serverless`. */
export const ListEndpointBillingResponse = billingResponse(EndpointBillingAmounts);
export const ListNetworkVolumeBillingResponse = billingResponse(
  NetworkVolumeBillingAmounts,
  'networkVolumeId',
  'NetworkVolume',
);
export const ListClusterBillingResponse = billingResponse(ClusterBillingAmounts, 'clusterId', 'Cluster');
