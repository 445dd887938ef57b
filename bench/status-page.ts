/**
 * Time to first byte of the status page `/` at the `large` scenario (2,000 Pods, hundreds of them
 * idle with a stop planned), next to `/api/status` in the same run and over the same HTTP server:
 * both read the same tables, so the ratio shows what rendering HTML adds.
 *
 *   npm run bench:status-page [-- requests]        # default 20 of each, interleaved
 */
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { VirtualClock } from '../src/clock.js';
import { defaultConfig } from '../src/config/load.js';
import { Daemon } from '../src/daemon.js';
import { silentLogger } from '../src/log.js';
import { packagePath } from '../src/package-root.js';
import { InflightCounter } from '../src/scheduler/inflight.js';
import { loadScenario } from '../src/simulator/scenario.js';
import { startSimulator } from '../src/simulator/server.js';
import { startMetricsServer } from '../src/web/server.js';
import { benchDir, fmt } from './support.js';

const REQUESTS = Number(process.argv[2] ?? 20);
const MINUTE = 60_000;
/** Long enough for the default idle rule (30 min window) to warn the idle Pods. */
const MINUTES = 40;

const scenario = { ...loadScenario(packagePath('config/scenarios/large.json')), rateLimit: undefined, faults: [] };
const clock = new VirtualClock(scenario.startMs + 6 * 60 * MINUTE);
const sim = await startSimulator({ scenario, clock });
const config = defaultConfig([
  { name: 'bench', apiKey: scenario.apiKey, restBaseUrl: sim.restBaseUrl, graphqlBaseUrl: sim.graphqlUrl },
]);
config.database.path = `${benchDir()}/bench.db`;
config.http.listen = '127.0.0.1:0';
config.collectors.billing.backfillMs = 6 * 60 * MINUTE;
const log = silentLogger();
const daemon = await Daemon.open({ config, clock, log, inflight: new InflightCounter() });

const setupStart = performance.now();
await daemon.collectOnce();
for (let minute = 0; minute < MINUTES; minute++) {
  await clock.advanceBy(MINUTE);
  await daemon.collect('pods', 'bench');
  await daemon.evaluate();
}
const server = await startMetricsServer({ config, daemon, clock, log });

/** Milliseconds until the response's status line and headers arrive, and the body's size. */
function firstByte(path: string): Promise<{ ms: number; bytes: number; status: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    get(`${server.url}${path}`, (response) => {
      const ms = performance.now() - start;
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () => resolve({ ms, bytes, status: response.statusCode ?? 0 }));
    }).on('error', reject);
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const times: Record<string, number[]> = { '/': [], '/api/status': [] };
const sizes: Record<string, number> = {};
for (const path of Object.keys(times)) {
  const warm = await firstByte(path);
  if (warm.status !== 200) throw new Error(`${path}: status ${warm.status}`);
  sizes[path] = warm.bytes;
}
for (let i = 0; i < REQUESTS; i++) {
  for (const path of Object.keys(times)) times[path]?.push((await firstByte(path)).ms);
}
const status = JSON.parse(
  await new Promise<string>((resolve) => {
    get(`${server.url}/api/status`, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve(body));
    });
  }),
) as { idle: unknown[]; receipts: unknown[]; alerts: unknown[] };

const page = median(times['/'] ?? []);
const api = median(times['/api/status'] ?? []);
console.log(
  `large scenario: ${fmt(scenario.pods.length)} Pods, ${status.idle.length} idle candidates, ${status.receipts.length} receipts shown, ${status.alerts.length} open alerts (setup ${fmt((performance.now() - setupStart) / 1000, 1)} s)`,
);
console.log(`time to first byte, median of ${REQUESTS}:`);
console.log(`  /            ${fmt(page, 1)} ms (${fmt((sizes['/'] ?? 0) / 1024)} KiB)`);
console.log(`  /api/status  ${fmt(api, 1)} ms (${fmt((sizes['/api/status'] ?? 0) / 1024)} KiB)`);
console.log(`  ratio        ${fmt(page / api, 2)}×`);
await server.close();
await daemon.close();
await sim.close();
