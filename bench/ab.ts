/**
 * Before/after of the performance envelope (issue 26's table): each bench line run in the base
 * checkout and in the head checkout in turns (base, head, base, head, ...), each with its own
 * bench scripts and node_modules, then the median of each side against the ceiling.
 *
 *   node --import tsx bench/ab.ts --base /work/wt/base-c28 --head /work/main [--pairs 5]
 *     [--only idle,budget,metrics,collect,backfill,db-size,replay] [--large-day] [--idle-days 1,14]
 *     [--work DIR]
 *
 * A bench prints its figures on a last `bench-result {json}` line; a checkout whose benches
 * predate that line (c28c08b) is read from its prose. The `large` day is opt-in (--large-day, or
 * `large-day` in --only) and runs once a side: it takes minutes. budget and metrics share one
 * collected month of `large` per side (PODWARDEN_BENCH_DB in --work), collected by that side's
 * own code on its first run (not timed). Every run's output is kept in --work.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

interface Figure {
  /** Key in the bench-result line. */
  key: string;
  label: string;
  ceiling: string;
  /** Absent for a figure shown for reference only (CPU beside wall time on a shared machine). */
  within?: (value: number) => boolean;
  unit: string;
  digits: number;
  /** The figure in the prose of a bench without a bench-result line. */
  prose: RegExp;
}

interface Line {
  id: string;
  script: string;
  args: string[];
  /** Runs a side, whatever --pairs says (the large day). */
  runsPerSide?: number;
  monthDb?: boolean;
  figures: Figure[];
}

/** A number as the benches print it (en-US: "1,234.5"). */
const NUMBER = '([\\d,]+(?:\\.\\d+)?)';
const re = (source: string) => new RegExp(source.replaceAll('#', NUMBER), 'm');

function lines(options: { idleDays: string[]; largeDay: boolean }): Line[] {
  const longest = Math.max(...(options.idleDays.length > 0 ? options.idleDays.map(Number) : [14]));
  return [
    {
      id: 'idle',
      script: 'bench/idle.ts',
      args: options.idleDays,
      figures: [
        {
          key: 'tickMs',
          label: `idle tick, 2,000 Pods (${longest} d history)`,
          ceiling: '≤ 30 ms',
          within: (v) => v <= 30,
          unit: 'ms',
          digits: 1,
          prose: re(`^\\s*${longest} d history: .*?tick median # ms`),
        },
        {
          key: 'tickCpuMs',
          label: `idle tick CPU (${longest} d history, for reference)`,
          ceiling: '—',
          unit: 'ms',
          digits: 1,
          prose: re(`^\\s*${longest} d history: .*?CPU median # ms`),
        },
      ],
    },
    {
      id: 'budget',
      script: 'bench/budget.ts',
      args: [],
      monthDb: true,
      figures: [
        {
          key: 'tickMs',
          label: '5 budgets at month end, per tick',
          ceiling: '≤ 30 ms',
          within: (v) => v <= 30,
          unit: 'ms',
          digits: 1,
          prose: re('five budgets, one tick:\\s+# ms'),
        },
      ],
    },
    {
      id: 'metrics',
      script: 'bench/metrics.ts',
      args: [],
      monthDb: true,
      figures: [
        {
          key: 'ratioNoBudgets',
          label: '`/metrics` vs bare prom-client (no budgets)',
          ceiling: '≤ 1.3×',
          within: (v) => v <= 1.3,
          unit: '×',
          digits: 2,
          prose: re('^no budgets .*ratio #×'),
        },
        {
          key: 'ratioFiveBudgets',
          label: '`/metrics` vs bare prom-client (five budgets)',
          ceiling: '≤ 1.3×',
          within: (v) => v <= 1.3,
          unit: '×',
          digits: 2,
          prose: re('^five budgets .*ratio #×'),
        },
      ],
    },
    {
      id: 'collect',
      script: 'bench/collect-cycle.ts',
      args: [],
      figures: [
        {
          key: 'requests',
          label: 'requests per `large` cycle',
          ceiling: '209',
          within: (v) => v <= 209,
          unit: '',
          digits: 0,
          prose: re('^\\s*requests\\s+#$'),
        },
        {
          key: 'ratio',
          label: 'collect cycle vs request floor',
          ceiling: '≤ 1.3×',
          within: (v) => v <= 1.3,
          unit: '×',
          digits: 2,
          prose: re('ratio\\s+#× the floor'),
        },
      ],
    },
    {
      id: 'backfill',
      script: 'bench/backfill.ts',
      args: [],
      figures: [
        {
          key: 'peakRssMb',
          label: 'peak RSS, `large` with the 30-day backfill',
          ceiling: '≤ 250 MB',
          within: (v) => v <= 250,
          unit: 'MB',
          digits: 0,
          prose: re('peak RSS of the daemon.*?: # MB'),
        },
        {
          key: 'ratio',
          label: '30-day backfill vs raw prepared inserts',
          ceiling: '≥ 0.5×',
          within: (v) => v >= 0.5,
          unit: '×',
          digits: 2,
          prose: re('end to end, rows/s against raw: #×'),
        },
      ],
    },
    {
      id: 'db-size',
      script: 'bench/db-size.ts',
      args: [],
      figures: [
        {
          key: 'projectedGb',
          label: '30 days of `large` on disk',
          ceiling: '≤ 1 GB',
          within: (v) => v <= 1,
          unit: 'GB',
          digits: 3,
          prose: re('^projection for 30 days of large .*?: # GB'),
        },
      ],
    },
    {
      id: 'replay',
      script: 'bench/replay.ts',
      args: ['24h', '0'],
      figures: [
        {
          key: 'small-team 24h wallMs',
          label: 'replayed `small-team` day',
          ceiling: '≤ 8 s',
          within: (v) => v <= 8,
          unit: 's',
          digits: 1,
          prose: re('^small-team 24h: # s wall'),
        },
        {
          key: 'small-team 24h cpuMs',
          label: 'replayed `small-team` day, CPU (for reference)',
          ceiling: '—',
          unit: 's',
          digits: 1,
          prose: re('^small-team 24h: .*? s wall, # s CPU'),
        },
      ],
    },
    ...(options.largeDay
      ? [
          {
            id: 'large-day',
            script: 'bench/replay.ts',
            args: ['0', '24h'],
            runsPerSide: 1,
            figures: [
              {
                key: 'large 24h wallMs',
                label: 'replayed `large` day (one run a side)',
                ceiling: '≤ 5 min',
                within: (v: number) => v <= 300,
                unit: 's',
                digits: 0,
                prose: re('^large 24h: # s wall'),
              },
            ],
          },
        ]
      : []),
  ];
}

/** The figures of one run: from its bench-result line, and those it lacks from the prose. */
function figuresOf(line: Line, stdout: string): Map<string, number> {
  const found = new Map<string, number>();
  const result = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('bench-result '));
  if (result) {
    const json = JSON.parse(result.slice('bench-result '.length)) as Record<string, unknown>;
    for (const figure of line.figures) {
      const value = json[figure.key];
      // The replay bench reports ms; the table's lines are in seconds.
      if (typeof value === 'number') found.set(figure.key, /(wall|cpu)Ms$/.test(figure.key) ? value / 1000 : value);
    }
  }
  for (const figure of line.figures) {
    if (found.has(figure.key)) continue;
    const match = figure.prose.exec(stdout);
    if (match?.[1]) found.set(figure.key, Number(match[1].replaceAll(',', '')));
  }
  return found;
}

interface Run {
  figures: Map<string, number>;
  error?: string;
  seconds: number;
}

/** One bench run in `checkout`, its output kept in `logFile`. */
function runBench(checkout: string, line: Line, env: NodeJS.ProcessEnv, logFile: string): Promise<Run> {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', line.script, ...line.args], {
      cwd: checkout,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(logFile);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      log.write(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      log.write(chunk);
    });
    child.on('close', (code) => {
      log.end();
      const seconds = (performance.now() - started) / 1000;
      const figures = figuresOf(line, stdout);
      const missing = line.figures.filter((f) => !figures.has(f.key)).map((f) => f.key);
      const error =
        code !== 0
          ? `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' / ')}`
          : missing.length > 0
            ? `no figure ${missing.join(', ')} in its output`
            : undefined;
      done({ figures, seconds, ...(error ? { error } : {}) });
    });
  });
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const { values: argv } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string' },
    pairs: { type: 'string', default: '5' },
    only: { type: 'string' },
    'large-day': { type: 'boolean', default: false },
    'idle-days': { type: 'string' },
    work: { type: 'string' },
  },
});
if (!argv.base || !argv.head) {
  console.error('usage: node --import tsx bench/ab.ts --base CHECKOUT --head CHECKOUT [--pairs 5] [--only ids]');
  process.exit(2);
}
const sides = [
  { name: 'base', dir: resolve(argv.base) },
  { name: 'head', dir: resolve(argv.head) },
] as const;
for (const side of sides) {
  if (!existsSync(join(side.dir, 'bench')) || !existsSync(join(side.dir, 'node_modules'))) {
    console.error(`--${side.name} ${side.dir}: not a podwarden checkout with bench/ and node_modules/`);
    process.exit(2);
  }
}
const pairs = Number(argv.pairs);
if (!Number.isInteger(pairs) || pairs < 1) {
  console.error(`--pairs: expected a whole number ≥ 1, got "${argv.pairs}"`);
  process.exit(2);
}
const only = argv.only?.split(',').map((id) => id.trim());
const all = lines({
  idleDays: argv['idle-days']?.split(',') ?? [],
  largeDay: argv['large-day'] || (only?.includes('large-day') ?? false),
});
const unknown = only?.filter((id) => !all.some((line) => line.id === id)) ?? [];
if (unknown.length > 0) {
  console.error(`--only: unknown ${unknown.join(', ')}; the lines are ${all.map((l) => l.id).join(', ')}, large-day`);
  process.exit(2);
}
const chosen = all.filter((line) => !only || only.includes(line.id));
const work = resolve(argv.work ?? mkdtempSync(join(tmpdir(), 'podwarden-ab-')));
mkdirSync(work, { recursive: true });
console.error(`ab: base ${sides[0].dir}, head ${sides[1].dir}; runs' output in ${work}`);

const results = new Map<string, Record<'base' | 'head', Run[]>>();
const show = (value: number | undefined, figure: Figure) =>
  value === undefined
    ? 'failed'
    : `${value.toLocaleString('en-US', { maximumFractionDigits: figure.digits, minimumFractionDigits: figure.digits })}${figure.unit === '×' ? '×' : figure.unit ? ` ${figure.unit}` : ''}`;
const yes = (value: number | undefined, figure: Figure) =>
  !figure.within ? 'n/a' : value === undefined ? '?' : figure.within(value) ? 'yes' : 'no';

/** The table of the lines run so far (written to --work after each line, so a cut-off run leaves it). */
function table(): string {
  const out: string[] = [];
  out.push(`base ${sides[0].dir}, head ${sides[1].dir}; runs alternating base, head; median per side\n`);
  out.push('| bench line | base median | head median | ceiling | within (base / head) | base runs | head runs |');
  out.push('| --- | --- | --- | --- | --- | --- | --- |');
  const notes: string[] = [];
  for (const line of chosen) {
    const runs = results.get(line.id);
    if (!runs) continue;
    for (const figure of line.figures) {
      const values = (side: 'base' | 'head') =>
        runs[side].flatMap((run) => (run.figures.has(figure.key) ? [run.figures.get(figure.key) as number] : []));
      const raw = (side: 'base' | 'head') =>
        runs[side]
          .map((run) => (run.figures.has(figure.key) ? show(run.figures.get(figure.key), figure) : 'failed'))
          .join(', ');
      const base = median(values('base'));
      const head = median(values('head'));
      out.push(
        `| ${figure.label} | ${show(base, figure)} | ${show(head, figure)} | ${figure.ceiling} | ${yes(base, figure)} / ${yes(head, figure)} | ${raw('base')} | ${raw('head')} |`,
      );
    }
    const count = line.runsPerSide ?? pairs;
    if (count < 5) notes.push(`${line.id}: ${count} run(s) a side, not the issue's 5 pairs`);
    for (const side of ['base', 'head'] as const) {
      runs[side].forEach((run, i) => {
        if (run.error)
          notes.push(`${line.id} ${side} run ${i + 1} failed: ${run.error} (output: ${line.id}-${side}-${i + 1}.log)`);
      });
    }
  }
  if (notes.length > 0) out.push(`\n${notes.map((n) => `- ${n}`).join('\n')}`);
  return out.join('\n');
}

for (const line of chosen) {
  const runs = { base: [] as Run[], head: [] as Run[] };
  results.set(line.id, runs);
  const count = line.runsPerSide ?? pairs;
  for (let i = 1; i <= count; i++) {
    for (const side of sides) {
      const env = line.monthDb ? { PODWARDEN_BENCH_DB: join(work, `${side.name}-month-end.db`) } : {};
      const logFile = join(work, `${line.id}-${side.name}-${i}.log`);
      const run = await runBench(side.dir, line, env, logFile);
      runs[side.name].push(run);
      const shown = [...run.figures].map(([k, v]) => `${k}=${Number(v.toPrecision(4))}`).join(' ');
      console.error(
        `ab: ${line.id} ${side.name} ${i}/${count}: ${run.error ? `FAILED (${run.error})` : shown} in ${run.seconds.toFixed(0)} s`,
      );
    }
  }
  writeFileSync(join(work, 'table.md'), `${table()}\n`);
}

console.log(`\n${table()}`);
console.log(`\nruns' output: ${work}`);
