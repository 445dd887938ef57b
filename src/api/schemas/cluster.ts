import { z } from 'zod';
import { DateTime, Int, PodStatus } from './common.js';

export const Cluster = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.enum(['APPLICATION', 'TRAINING', 'SLURM', 'RAY']),
  compute: z.looseObject({ gpuTypeId: z.string(), gpuCountPerPod: Int, podCount: Int }),
  template: z.string().optional(),
  dataCenterId: z.string().optional(),
  /** `byStatus` is keyed by PodStatus, e.g. `{ RUNNING: 3, PROVISIONING: 1 }`. */
  pods: z.looseObject({ total: Int, byStatus: z.record(z.string(), Int) }),
  network: z.looseObject({ cidr: z.string(), vxlanId: Int.optional(), vxlanPort: Int.optional() }).optional(),
  primary: z.looseObject({ podId: z.string(), status: PodStatus, sshEndpoint: z.string().optional() }).optional(),
  createdAt: DateTime,
});
export type Cluster = z.infer<typeof Cluster>;
