import { z } from 'zod';

/**
 * RFC 3339 with `Z` or a numeric offset, as the v2 document's `format: date-time`. RFC 3339
 * (§5.6) lets `T` and `Z` be lowercase; they are upper-cased before the check, so the stored
 * value is the canonical form.
 */
export const DateTime = z.preprocess(
  (value) => (typeof value === 'string' ? value.toUpperCase() : value),
  z.iso.datetime({ offset: true }),
);

/**
 * A JSON integer. zod's `z.int()` stops at 2^53 (safe integers), but the document's `integer`
 * has no such bound and JSON carries larger ones (as the nearest double): accept any whole number.
 */
export const Int = z.number().refine(Number.isInteger, { message: 'expected an integer' });

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
  vcpuCount: Int,
  memory: Int,
});
export type CpuConfig = z.infer<typeof CpuConfig>;

/** `ContainerConfig` fields, all optional here; records that require them say so. */
export const containerConfigShape = {
  image: z.string().optional(),
  args: z.string().optional(),
  disk: Int.optional(),
  env: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  registry: z.string().nullable().optional(),
};
