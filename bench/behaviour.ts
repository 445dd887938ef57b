/**
 * Behaviour of a checkout as md5s (issue 26's "what must not change"): replays a `small-team`
 * day and a `large` 2 h with the checkout's own `simulate`, then hashes
 *   - the report, less its wall-clock and jitter fields (`wallMs`; the warnings' `delayMs`, the
 *     retry backoff's random jitter; their `at`, order and a failed run's `err` but its kind,
 *     which that jitter moves),
 *   - the `alerts` rows (c28c08b's columns, less the row id, ordered by content),
 *   - the email outbox, less the random Message-ID and the SMTP server's reply: the rows of
 *     `outbox` (c28c08b) or the `email` rows of `channel_outbox` (one outbox keyed by channel),
 *     read into the same columns whichever table the checkout has, ordered by content.
 * With two checkouts it prints a table base vs head with identical yes/no.
 *
 *   node --import tsx bench/behaviour.ts --base /work/wt/base-c28 --head /work/main [--only small,large]
 *   node --import tsx bench/behaviour.ts --checkout DIR            # one checkout's md5s
 *     [--small-span 24h] [--large-span 2h] [--work DIR] [--rehash]
 *
 * --rehash hashes the replays already kept in --work (WORK/small-base/replay.db, report.json, ...)
 * instead of replaying them again.
 *
 * The replays of both checkouts run one after the other, never at once. Their databases,
 * reports and the canonical text hashed are kept in --work, so a difference can be diffed.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

/** Report fields that depend on the machine or on chance, not on behaviour. */
const UNSTABLE_FIELDS = new Set(['wallMs', 'delayMs']);

const ALERT_COLUMNS = [
  'key',
  'rule',
  'account',
  'severity',
  'summary',
  'labels',
  'details',
  'recipients',
  'active_since',
  'last_seen_at',
  'fired_at',
  'resolved_at',
  'absent_since',
];

/** An email row's content, the same columns from either shape of the outbox. */
const EMAIL_COLUMNS = [
  'account',
  'group_key',
  'reason',
  'to',
  'subject',
  'text',
  'html',
  'alert_keys',
  'created_at',
  'attempts',
  'delivered_at',
  'abandoned_at',
];
const EMAIL_ORDER = 'ORDER BY created_at, account, group_key, reason, subject, "to", text';
const EMAIL_QUERIES = {
  outbox: `SELECT account, group_key, reason, json("to") AS "to", subject, text, html, alert_keys, created_at,
      attempts, sent_at AS delivered_at, abandoned_at FROM outbox ${EMAIL_ORDER}`,
  channel_outbox: `SELECT account, group_key, reason, json_extract(payload, '$.to') AS "to",
      json_extract(payload, '$.subject') AS subject, json_extract(payload, '$.text') AS text,
      json_extract(payload, '$.html') AS html, alert_keys, created_at, attempts, delivered_at, abandoned_at
      FROM channel_outbox WHERE channel = 'email' ${EMAIL_ORDER}`,
};

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

function withoutUnstable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUnstable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !UNSTABLE_FIELDS.has(key))
        .map(([key, v]) => [key, withoutUnstable(v)]),
    );
  }
  return value;
}

/**
 * The report less what chance decides: the unstable fields, the warnings' times and order, and a
 * failed run's error (but its kind). A
 * retry waits a random share of its backoff on the virtual clock, so the same run logs its
 * retries a second or two apart and concurrent collectors' retries interleave differently; which
 * warnings were logged, and what they say, still counts.
 */
function canonicalReport(report: Record<string, unknown>): unknown {
  const stable = withoutUnstable(report) as Record<string, unknown>;
  if (!Array.isArray(stable.warnings)) return stable;
  const warnings = stable.warnings.map((warning: Record<string, unknown>) => {
    const { at: _at, ...rest } = warning;
    const fields = rest.fields as Record<string, unknown> | undefined;
    const err = fields?.err as { kind?: unknown } | undefined;
    // A failed run's error is the first of its concurrent requests to give up: chance too. Its kind is not.
    return JSON.stringify(err ? { ...rest, fields: { ...fields, err: { kind: err.kind } } } : rest);
  });
  return { ...stable, warnings: warnings.sort().map((text) => JSON.parse(text)) };
}

interface Hashes {
  report: string;
  alerts: string;
  emails: string;
  /** Rows hashed, and which outbox table they came from. */
  counts: string;
  seconds: number;
}

function simulate(checkout: string, args: string[], logFile: string): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'simulate', ...args], {
      cwd: checkout,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      writeFileSync(logFile, stderr);
      if (code === 0) done();
      else fail(new Error(`simulate in ${checkout} exited ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
    });
  });
}

async function replayHashes(
  checkout: string,
  scenario: string,
  span: string,
  dir: string,
  rehash: boolean,
): Promise<Hashes> {
  mkdirSync(dir, { recursive: true });
  const dbFile = join(dir, 'replay.db');
  const reportFile = join(dir, 'report.json');
  const started = performance.now();
  if (rehash && existsSync(dbFile) && existsSync(reportFile))
    console.error(`behaviour: ${dir}: hashing the kept replay`);
  else
    await simulate(
      checkout,
      ['--scenario', scenario, '--until', span, '--db', dbFile, '--report', reportFile],
      join(dir, 'simulate.log'),
    );
  const seconds = (performance.now() - started) / 1000;
  const report = `${JSON.stringify(canonicalReport(JSON.parse(readFileSync(reportFile, 'utf8'))), null, 2)}\n`;
  const db = new Database(dbFile, { readonly: true });
  try {
    const alertRows = db
      .prepare(
        `SELECT ${ALERT_COLUMNS.map((c) => `"${c}"`).join(', ')} FROM alerts ORDER BY ${ALERT_COLUMNS.join(', ')}`,
      )
      .raw()
      .all();
    const tables = new Set(
      (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]).filter(
        (name) => name in EMAIL_QUERIES,
      ),
    );
    // Both at once would be a migration half done: name it rather than pick one.
    if (tables.size !== 1) throw new Error(`${dbFile}: expected one of outbox, channel_outbox; found ${[...tables]}`);
    const table = [...tables][0] as keyof typeof EMAIL_QUERIES;
    const emailRows = db.prepare(EMAIL_QUERIES[table]).raw().all();
    const alerts = `${ALERT_COLUMNS.join('\t')}\n${alertRows.map((row) => JSON.stringify(row)).join('\n')}\n`;
    const emails = `${EMAIL_COLUMNS.join('\t')}\n${emailRows.map((row) => JSON.stringify(row)).join('\n')}\n`;
    writeFileSync(join(dir, 'report.hashed.json'), report);
    writeFileSync(join(dir, 'alerts.hashed.txt'), alerts);
    writeFileSync(join(dir, 'emails.hashed.txt'), emails);
    return {
      report: md5(report),
      alerts: md5(alerts),
      emails: md5(emails),
      counts: `${alertRows.length} alerts, ${emailRows.length} emails (${table})`,
      seconds,
    };
  } finally {
    db.close();
  }
}

const { values: argv } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    checkout: { type: 'string' },
    only: { type: 'string', default: 'small,large' },
    'small-span': { type: 'string', default: '24h' },
    'large-span': { type: 'string', default: '2h' },
    work: { type: 'string' },
    rehash: { type: 'boolean', default: false },
  },
});
const checkouts = argv.checkout
  ? [{ name: 'checkout', dir: resolve(argv.checkout) }]
  : argv.base && argv.head
    ? [
        { name: 'base', dir: resolve(argv.base) },
        { name: 'head', dir: resolve(argv.head) },
      ]
    : [];
if (checkouts.length === 0) {
  console.error(
    'usage: node --import tsx bench/behaviour.ts (--checkout DIR | --base DIR --head DIR) [--only small,large]',
  );
  process.exit(2);
}
for (const { name, dir } of checkouts) {
  if (!existsSync(join(dir, 'src/main.ts'))) {
    console.error(`--${name} ${dir}: no src/main.ts, not a podwarden checkout`);
    process.exit(2);
  }
}
const replays = [
  { id: 'small', scenario: 'small-team', span: argv['small-span'] },
  { id: 'large', scenario: 'large', span: argv['large-span'] },
];
const only = argv.only.split(',').map((id) => id.trim());
const bad = only.filter((id) => !replays.some((r) => r.id === id));
if (bad.length > 0) {
  console.error(`--only: unknown ${bad.join(', ')}; expected small, large`);
  process.exit(2);
}
const work = resolve(argv.work ?? mkdtempSync(join(tmpdir(), 'podwarden-behaviour-')));
console.error(`behaviour: replays and hashed text in ${work}`);

const rows: string[] = [];
for (const r of replays.filter((r) => only.includes(r.id))) {
  const hashes: Hashes[] = [];
  for (const { name, dir } of checkouts) {
    const out = join(work, `${r.id}-${name}`);
    const h = await replayHashes(dir, r.scenario, r.span, out, argv.rehash);
    console.error(`behaviour: ${r.scenario} ${r.span} in ${name}: ${h.counts}, replayed in ${h.seconds.toFixed(0)} s`);
    hashes.push(h);
  }
  for (const what of ['report', 'alerts', 'emails'] as const) {
    const label = `${r.scenario} ${r.span}: ${what === 'emails' ? 'email outbox' : what === 'alerts' ? '`alerts` rows' : 'report'}`;
    const [a, b] = hashes;
    if (!a) continue;
    rows.push(
      b
        ? `| ${label} | ${a[what]} | ${b[what]} | ${a[what] === b[what] ? 'yes' : 'no'} |`
        : `| ${label} | ${a[what]} |`,
    );
  }
  const [a, b] = hashes;
  if (a)
    rows.push(
      b
        ? `| ${r.scenario} ${r.span}: rows | ${a.counts} | ${b.counts} | |`
        : `| ${r.scenario} ${r.span}: rows | ${a.counts} |`,
    );
}
console.log(
  checkouts.length === 2
    ? `\nbase ${checkouts[0]?.dir}, head ${checkouts[1]?.dir}\n\n| what | base md5 | head md5 | identical |\n| --- | --- | --- | --- |`
    : `\n${checkouts[0]?.dir}\n\n| what | md5 |\n| --- | --- |`,
);
console.log(rows.join('\n'));
console.log(
  `\nreport less ${[...UNSTABLE_FIELDS].join(', ')} and the warnings' times, order and errors (kind kept); alerts less id; emails less message_id and the SMTP reply. ` +
    `Hashed text in ${work}`,
);
