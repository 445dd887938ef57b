#!/usr/bin/env node
// Fails (exit 1) when src/db/schema.ts and the committed migrations disagree: drizzle-kit
// generates into a temporary copy of migrations/, and anything it writes is a missing migration.
// Usage (from anywhere): node scripts/check-migrations.mjs [MIGRATIONS_DIR]; CI runs `npm run db:check`.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');

function listFiles(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

/** Generates into `copy` with the repository's own drizzle.config.ts, only the output folder changed. */
function generate(scratch, copy) {
  const config = join(scratch, 'drizzle.check.config.cjs');
  writeFileSync(
    config,
    `const base = require(${JSON.stringify(join(root, 'drizzle.config.ts'))});\n` +
      // drizzle-kit reads `out` as relative to the working directory (it prefixes './').
      `module.exports = { ...(base.default ?? base), out: ${JSON.stringify(relative(root, copy))} };\n`,
  );
  return spawnSync(
    join(root, 'node_modules', '.bin', 'drizzle-kit'),
    ['generate', '--config', config, '--name', 'unsaved'],
    {
      cwd: root,
      encoding: 'utf8',
      // No terminal: a prompt (a renamed column or table?) fails instead of waiting forever.
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    },
  );
}

function check(committed) {
  const scratch = mkdtempSync(join(tmpdir(), 'podwarden-migrations-'));
  try {
    const copy = join(scratch, 'migrations');
    cpSync(committed, copy, { recursive: true });
    const run = generate(scratch, copy);
    // drizzle-kit exits 0 even when it fails, so require the line it prints on success.
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
    const generated = /No schema changes|Your SQL migration file/.test(output);
    if (run.status !== 0 || !generated) {
      process.stderr.write(output);
      console.error(
        'db:check: drizzle-kit generate failed (see above), so the schema cannot be compared with migrations.',
      );
      return 1;
    }
    const before = listFiles(committed);
    const after = listFiles(copy);
    const added = after.filter((file) => !before.includes(file));
    const changed = before.filter(
      (file) => after.includes(file) && !readFileSync(join(committed, file)).equals(readFileSync(join(copy, file))),
    );
    if (added.length === 0 && changed.length === 0) {
      const count = before.filter((file) => file.endsWith('.sql')).length;
      console.log(`db:check: ${committed} matches src/db/schema.ts (${count} migrations).`);
      return 0;
    }
    console.error(`db:check: src/db/schema.ts has changes that no migration in ${committed} records.`);
    for (const file of added) console.error(`  would add     ${file}`);
    for (const file of changed) console.error(`  would change  ${file}`);
    const sql = added.find((file) => file.endsWith('.sql'));
    if (sql) console.error(`\nThe missing migration:\n${readFileSync(join(copy, sql), 'utf8')}\n`);
    console.error('Run `npm run db:generate -- --name <what-changed>` and commit migrations/.');
    return 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = check(resolve(process.argv[2] ?? join(root, 'migrations')));
