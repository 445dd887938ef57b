/** Every table of the podwarden database; drizzle-kit generates migrations/ from these. */
export * from './tables/alerts.js';
export * from './tables/billing.js';
export * from './tables/catalog.js';
export * from './tables/core.js';
export * from './tables/enforce.js';
export * from './tables/idle.js';
export * from './tables/inventory.js';
export * from './tables/links.js';
export * from './tables/outbox.js';
export * from './tables/plan-changes.js';
export * from './tables/pods.js';
export * from './tables/savings.js';
export * from './tables/stock.js';
