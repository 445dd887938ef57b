import { z } from 'zod';
import { Int, VolumeType } from './common.js';

export const NetworkVolume = z.looseObject({
  id: z.string(),
  name: z.string(),
  /** GB. */
  size: Int,
  /** Data center id; note v2 says `dataCenter` where v1 said `dataCenterId`. */
  dataCenter: z.string(),
  type: VolumeType,
});
export type NetworkVolume = z.infer<typeof NetworkVolume>;
