import { z } from 'zod';
import { recipientsField } from './email.js';

/** RunPod's availability levels, lowest first. */
export const AVAILABILITY_LEVELS = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
export type AvailabilityLevel = (typeof AVAILABILITY_LEVELS)[number];

export const CAPACITY_EVENTS = ['rise', 'fall', 'price'] as const;

const watch = z
  .strictObject({
    /** The API's GPU type id (`NVIDIA H200`), or else `name` (`H200 SXM`, as the catalog names it). */
    gpuTypeId: z.string().min(1).optional(),
    name: z
      .string()
      .min(1)
      .optional()
      .describe('The GPU type as the catalog names it (`H200 SXM`), instead of gpuTypeId.'),
    /** One configured account; absent: every account. */
    account: z.string().min(1).optional(),
    product: z.enum(['POD', 'CLUSTER', 'SERVERLESS']).default('POD'),
    /** Data center ids; absent: the GPU type's availability over every data center. */
    dataCenters: z.array(z.string().min(1)).min(1).optional(),
    /** The levels you want: `rise` alerts when availability enters them, `fall` when it leaves them. */
    levels: z
      .array(z.enum(['LOW', 'MEDIUM', 'HIGH']))
      .min(1)
      .prefault(['LOW', 'MEDIUM', 'HIGH']),
    alertOn: z.array(z.enum(CAPACITY_EVENTS)).min(1).prefault(['rise']),
    /** With `price` in alertOn: alert when a price moves by at least this fraction (0.1 = 10 %). */
    priceChange: z.number().positive().max(10).default(0.1),
    recipients: recipientsField(),
  })
  .superRefine((value, issues) => {
    if ((value.gpuTypeId === undefined) === (value.name === undefined)) {
      issues.addIssue({ code: 'custom', path: ['gpuTypeId'], message: 'set gpuTypeId or name (one of them)' });
    }
  });

/** `capacity`: GPU types to watch in the catalog's availability history. */
export const capacitySection = z
  .strictObject({
    watch: z.array(watch).prefault([]).describe('The GPU types to watch; none by default.'),
  })
  .prefault({});

export type CapacityWatch = z.output<typeof watch>;

/**
 * The GPU types a watch means in an account: its `gpuTypeId`, or every type of the account's
 * catalog (`names`: id → display name) whose name is the watch's `name`.
 */
export function watchedGpuTypeIds(watch: CapacityWatch, names: ReadonlyMap<string, string>): string[] {
  if (watch.gpuTypeId) return [watch.gpuTypeId];
  return [...names].filter(([, name]) => name === watch.name).map(([id]) => id);
}
