import { z } from 'zod';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** `log`: structured logs on stderr; `auto` is readable on a terminal and JSON otherwise. */
export const logSection = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info'),
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .prefault({});
