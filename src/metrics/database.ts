import { gauge } from './account-series.js';
import type { MetricsContext } from './source.js';

/** Whether the database can be written: when not, no email can be queued and Prometheus must tell. */
export function registerDatabaseMetrics({ registry, source }: MetricsContext): void {
  gauge(registry, {
    name: 'podwarden_database_writable',
    help: "1 while the database's last write succeeded; 0 after a failed write (disk full, read-only), until one succeeds.",
    collect() {
      // The scrape reads no database, but a closed one fails it as a whole: Prometheus then
      // sees the target down rather than values that can no longer change.
      if (!source.db.sqlite.open) throw new Error('podwarden_database_writable: the database connection is not open');
      this.set(source.databaseWriteProblem() === undefined ? 1 : 0);
    },
  });
}
