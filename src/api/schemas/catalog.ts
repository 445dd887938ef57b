import { z } from 'zod';
import { AvailabilityLevel, Int, VolumeType } from './common.js';

const ResourceAvailability = z.looseObject({ id: z.string(), name: z.string(), availability: AvailabilityLevel });

/** `availability`, `dataCenters` and `cudaVersions` come only with `include=AVAILABILITY`. */
export const GpuType = z.looseObject({
  id: z.string(),
  name: z.string(),
  pool: z.string().nullable(),
  manufacturer: z.enum(['NVIDIA', 'AMD', 'UNKNOWN']),
  /** GB. */
  memory: Int,
  secure: z.boolean(),
  community: z.boolean(),
  /** USD per hour for one GPU. */
  price: z.looseObject({ secure: z.number(), community: z.number(), serverless: z.number().optional() }),
  maxCount: z.looseObject({ secure: Int, community: Int }),
  availability: AvailabilityLevel.optional(),
  dataCenters: z.array(ResourceAvailability).optional(),
  cudaVersions: z.array(z.looseObject({ version: z.string(), available: z.boolean() })).optional(),
});
export type GpuType = z.infer<typeof GpuType>;

export const CpuType = z.looseObject({
  id: z.string(),
  name: z.string(),
  group: z.string(),
  vcpu: z.looseObject({ min: Int, max: Int }),
  ramGbPerVcpu: z.number(),
  price: z.looseObject({ securePerVcpu: z.number(), serverlessPerVcpu: z.number() }),
  availability: AvailabilityLevel.optional(),
  dataCenters: z.array(ResourceAvailability).optional(),
});
export type CpuType = z.infer<typeof CpuType>;

const DataCenterRegion = z.enum([
  'NORTH_AMERICA',
  'SOUTH_AMERICA',
  'EUROPE',
  'ASIA',
  'MIDDLE_EAST',
  'AFRICA',
  'OCEANIA',
  'ANTARCTICA',
  'UNKNOWN',
]);

export const DataCenter = z.looseObject({
  id: z.string(),
  name: z.string(),
  region: DataCenterRegion,
  globalNetwork: z.boolean(),
  networkVolumeTypes: z.array(VolumeType),
  /** Certification names; kept as strings so a new certification does not fail the whole list. */
  compliance: z.array(z.string()),
  gpuAvailability: z.array(ResourceAvailability).optional(),
  cpuAvailability: z.array(ResourceAvailability).optional(),
});
export type DataCenter = z.infer<typeof DataCenter>;
