import { z } from 'zod';

/** RFC 9457 problem (`application/problem+json`), the v2 document's `ErrorResponse`. */
export const ErrorResponse = z.looseObject({
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  errors: z.array(z.string()).optional(),
});
