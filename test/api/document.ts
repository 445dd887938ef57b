import { readFileSync } from 'node:fs';
import { packagePath } from '../../src/package-root.js';

interface MediaType {
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
}

/** The contract: RunPod's REST v2 OpenAPI document, read from the repository copy. */
export const openapi = JSON.parse(
  readFileSync(packagePath('reference/runpod-rest-v2-openapi.json'), 'utf8'),
) as Document;

/** Every named example of a response, e.g. `documentExamples('get', '/v2/pods')`. */
export function documentExamples(method: string, path: string, status = '200'): Array<[string, unknown]> {
  const response = openapi.paths[path]?.[method]?.responses[status];
  if (!response) throw new Error(`${method.toUpperCase()} ${path} ${status} is not in the document`);
  return Object.values(response.content ?? {}).flatMap((media) =>
    Object.entries(media.examples ?? {}).map(([name, example]): [string, unknown] => [name, example.value]),
  );
}

/** The first example of a response; fixtures come from the contract, not from our memory of it. */
export function documentExample<T = Record<string, unknown>>(method: string, path: string, status = '200'): T {
  const [first] = documentExamples(method, path, status);
  if (!first) throw new Error(`${method.toUpperCase()} ${path} ${status} has no example`);
  return structuredClone(first[1]) as T;
}
