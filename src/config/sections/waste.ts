import { z } from 'zod';
import { duration, withMs } from '../fields.js';
import { recipientsField } from './email.js';

/** `waste`: money spent on nothing, each finding with what it costs. */
export const wasteSection = withMs(
  {
    enabled: z.boolean().default(true).describe('Whether the waste rule runs.'),
    /** A serverless endpoint whose minimum workers have had no work for this long. */
    endpointIdle: duration().prefault('6h'),
    /** A network volume no Pod has mounted for this long. */
    volumeUnmounted: duration().prefault('7d'),
    /** A stopped Pod still paying for its volume disk after this long. */
    stoppedPodVolume: duration().prefault('3d'),
    /** A RUNNING Pod that has reported no runtime data for this long (stuck starting). */
    stuckStarting: duration().prefault('30m'),
    recipients: recipientsField(),
  },
  ['endpointIdle', 'volumeUnmounted', 'stoppedPodVolume', 'stuckStarting'],
).prefault({});
