import { z } from 'zod';

const DESTINATION_NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/**
 * The name of a Slack or webhook destination: a route's recipient, an outbox row's target and
 * what logs call it (never its URL, which holds a token): kept short and plain.
 */
export function destinationName() {
  return z.string().regex(DESTINATION_NAME, {
    error: (issue) =>
      `invalid destination name "${String(issue.input)}" (expected lowercase letters, digits, ".", "_" and "-")`,
  });
}
