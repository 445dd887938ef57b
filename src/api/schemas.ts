/**
 * zod schemas for every record the daemon reads, following the official REST v2 document
 * (`reference/runpod-rest-v2-openapi.json`) plus the GraphQL shapes we still use. Unknown fields
 * are accepted; each schema and its type share one name.
 */
export * from './schemas/billing.js';
export * from './schemas/catalog.js';
export * from './schemas/cluster.js';
export * from './schemas/common.js';
export * from './schemas/graphql.js';
export * from './schemas/network-volume.js';
export * from './schemas/pod.js';
export * from './schemas/problem.js';
export * from './schemas/serverless.js';
