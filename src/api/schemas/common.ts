import { z } from 'zod';

/** RFC 3339 with `Z` or a numeric offset, as the v2 document's `format: date-time`. */
export const DateTime = z.iso.datetime({ offset: true });

export const PodStatus = z.enum(['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED']);
export type PodStatus = z.infer<typeof PodStatus>;

export const PodAction = z.enum(['start', 'stop', 'restart', 'terminate']);
export type PodAction = z.infer<typeof PodAction>;

export const Cloud = z.enum(['SECURE', 'COMMUNITY']);
export type Cloud = z.infer<typeof Cloud>;

export const AvailabilityLevel = z.enum(['NONE', 'LOW', 'MEDIUM', 'HIGH']);
export type AvailabilityLevel = z.infer<typeof AvailabilityLevel>;

export const VolumeType = z.enum(['STANDARD', 'HIGH_PERFORMANCE']);
export type VolumeType = z.infer<typeof VolumeType>;

/** Availability products of `GET /catalog/gpus` (`Product`); CPUs accept only POD and SERVERLESS. */
export const Product = z.enum(['POD', 'CLUSTER', 'SERVERLESS']);
export type Product = z.infer<typeof Product>;

export const CpuProduct = z.enum(['POD', 'SERVERLESS']);
export type CpuProduct = z.infer<typeof CpuProduct>;

/** A `CpuConfig`: shared by CPU pods and CPU serverless endpoints. */
export const CpuConfig = z.looseObject({
  id: z.string(),
  vcpuCount: z.int(),
  memory: z.int(),
});
export type CpuConfig = z.infer<typeof CpuConfig>;

/** `ContainerConfig` fields, all optional here; records that require them say so. */
export const containerConfigShape = {
  image: z.string().optional(),
  args: z.string().optional(),
  disk: z.int().optional(),
  env: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  registry: z.string().nullable().optional(),
};
