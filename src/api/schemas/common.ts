import { z } from 'zod';

/** A calendar date as zod's `z.iso.datetime` reads it: leap years and days per month checked. */
const DATE =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8])))';
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?';
const OFFSET = '(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';
const RFC_3339 = new RegExp(`^${DATE}[Tt]${TIME}${OFFSET}$`);

/** The date is always ten characters, so the `T` is at index 10 and a `Z` is the last one. */
const T_AT = 10;

/** Upper-cases `t` and `z`, the only letters a matching string can hold, when there is one. */
function canonical(value: string): string {
  return value.charCodeAt(T_AT) === 0x74 || value.endsWith('z') ? value.toUpperCase() : value;
}

/**
 * RFC 3339 with `Z` or a numeric offset, as the v2 document's `format: date-time`. RFC 3339
 * (§5.6) lets `T` and `Z` be lowercase; they are upper-cased after the check, so the stored
 * value is the canonical form. One anchored regex and a check in place (no pipe): every billing
 * record carries two of these.
 */
export const DateTime = z.stringFormat('datetime', RFC_3339).overwrite(canonical);

/**
 * A JSON integer. zod's `z.int()` stops at 2^53 (safe integers), but the document's `integer`
 * has no such bound and JSON carries larger ones (as the nearest double): accept any whole number.
 */
export const Int = z.number().refine(Number.isInteger, { message: 'expected an integer' });

export const PodStatus = z.enum(['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED']);

/**
 * The statuses in which a Pod holds its machine and is billed at its `cost` (the document: "0.0
 * when EXITED or TERMINATED"), with or without a runtime (null unless RUNNING).
 */
export const BILLED_POD_STATUSES: readonly string[] = ['PROVISIONING', 'STARTING', 'RUNNING'];

export const PodAction = z.enum(['start', 'stop', 'restart', 'terminate']);
export type PodAction = z.infer<typeof PodAction>;

export const Cloud = z.enum(['SECURE', 'COMMUNITY']);
export type Cloud = z.infer<typeof Cloud>;

export const AvailabilityLevel = z.enum(['NONE', 'LOW', 'MEDIUM', 'HIGH']);

export const VolumeType = z.enum(['STANDARD', 'HIGH_PERFORMANCE']);

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

/** `ContainerConfig` fields, all optional here; records that require them say so. */
export const containerConfigShape = {
  image: z.string().optional(),
  args: z.string().optional(),
  disk: Int.optional(),
  env: z.record(z.string(), z.string()).optional(),
  ports: z.array(z.string()).optional(),
  registry: z.string().nullable().optional(),
};
