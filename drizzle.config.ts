import { defineConfig } from 'drizzle-kit';

/** drizzle-kit reads this for `npm run db:generate`; scripts/check-migrations.mjs reuses it. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './migrations',
});
