import { z } from 'zod';
import { duration, withMs } from '../fields.js';
import { recipientsField } from './email.js';

/** `waste`: money spent on nothing, each finding with what it costs. */
export const wasteSection = withMs(
  {
    enabled: z.boolean().default(true).describe('Whether the waste rule runs.'),
    /** A serverless endpoint whose minimum workers have had no work for this long. */
    endpointIdle: duration().prefault('6h'),
    /**
     * An endpoint with workers.min 0 whose workers stay up with no work this long past its idle
     * timeout while billing shows them paid for (they do not scale down).
     */
    endpointScaleDown: duration().prefault('1h'),
    /** A network volume no Pod has mounted for this long. */
    volumeUnmounted: duration().prefault('7d'),
    /** A stopped Pod still paying for its volume disk after this long. */
    stoppedPodVolume: duration().prefault('3d'),
    /**
     * A billed Pod that runs nothing we can see for this long: RUNNING without runtime data, or
     * PROVISIONING/STARTING without reaching RUNNING (stuck starting).
     */
    stuckStarting: duration().prefault('30m'),
    recipients: recipientsField(),
  },
  ['endpointIdle', 'endpointScaleDown', 'volumeUnmounted', 'stoppedPodVolume', 'stuckStarting'],
).prefault({});
