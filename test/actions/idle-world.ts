import { runIdleLadder } from '../../src/actions/idle-evaluator.js';
import { catalogCollector } from '../../src/collectors/catalog.js';
import type { Collector } from '../../src/collectors/collector.js';
import { podsCollector } from '../../src/collectors/pods.js';
import { runCollector } from '../../src/collectors/run.js';
import type { Config } from '../../src/config/schema.js';
import type { IdleRuleConfig } from '../../src/config/sections/idle.js';
import { type ReceiptRecord, recentReceipts } from '../../src/db/receipts.js';
import type { ReceiptEvidence } from '../../src/db/schema.js';

/** A receipt of the idle ladder: its evidence is the idle window's. */
export type IdleReceipt = ReceiptRecord & { evidence: ReceiptEvidence };

import { parseDuration } from '../../src/duration.js';
import { EventBus } from '../../src/events.js';
import { type Logger, silentLogger } from '../../src/log.js';
import { BARE_COMMAND_LINE } from '../../src/messages/commands.js';
import type { Finding } from '../../src/rules/finding.js';
import { VirtualScheduler } from '../../src/scheduler/virtual.js';
import type { RequestLogEntry } from '../../src/simulator/request-log.js';
import type { EvaluationContext, EvaluationEvents } from '../../src/tick/context.js';
import { readSnapshots } from '../../src/tick/run.js';
import { ACCOUNT, type Harness, startHarness } from '../helpers/harness.js';

export const START = '2026-11-02T00:00:00Z';
export const START_MS = Date.parse(START);
export const at = (offset: string) => START_MS + parseDuration(offset);

export const GPU = 'NVIDIA RTX A5000';

/** A scenario with one GPU type (availability as given) and the Pods given. */
export function scenario(pods: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  return {
    name: 'idle-test',
    start: START,
    apiKey: 'sim-key',
    catalog: {
      gpus: [
        { id: GPU, name: 'RTX A5000', memory: 24, price: { secure: 0.27, community: 0.16 }, availability: 'HIGH' },
      ],
    },
    pods,
    ...extra,
  };
}

/** A RUNNING one-GPU Pod started two hours before the scenario, with the utilization given. */
export function pod(id: string, utilization: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}) {
  return {
    id,
    name: id,
    gpu: { id: GPU, count: 1 },
    cost: 0.27,
    status: 'RUNNING',
    startedAt: '-2h',
    dataCenterId: 'US-KS-2',
    volumeGb: 20,
    utilization,
    ...extra,
  };
}

/** Busy until `idleFrom`, then 0 % GPU and 0 % GPU memory. */
export const idleFrom = (offset: string) => [
  { at: '-2h', gpu: 80, gpuMemory: 40, memory: 30 },
  { at: offset, gpu: 0, gpuMemory: 0, memory: 10 },
];
export const busy = () => [{ at: '-2h', gpu: 80, gpuMemory: 40, memory: 30 }];

export interface Tick {
  at: number;
  findings: Finding[];
}

/**
 * The simulator, the database and the idle ladder on one virtual clock: the Pod and catalog
 * collectors on their schedules and the idle evaluator at :30 every minute, as the daemon runs them.
 */
export interface IdleWorld {
  h: Harness;
  ticks: Tick[];
  decided: Array<EvaluationEvents['action:decided']>;
  runUntil(offset: string): Promise<void>;
  /** One evaluation now, outside the schedule (a re-run after a crash). */
  evaluateNow(): Promise<Finding[]>;
  /** The idle ladder's receipts, evidence as the idle window's. */
  receipts(podId?: string): Promise<IdleReceipt[]>;
  /** Requests that changed a Pod (POST /pods/{id}/action) and re-reads (GET /pods/{id}). */
  actionRequests(): RequestLogEntry[];
  rereads(): RequestLogEntry[];
  findingsAt(offset: string): Finding[];
  close(): Promise<void>;
}

export async function startIdleWorld(
  source: Record<string, unknown>,
  rule: Partial<IdleRuleConfig> = {},
  tune: (config: Config) => void = () => {},
  options: { log?: Logger } = {},
): Promise<IdleWorld> {
  const h = await startHarness(source, (config) => {
    const [base] = config.idle.rules;
    // This world runs the idle evaluator without the alert pipeline, so no warning is ever
    // mailed: its tests are about the other guards (test/e2e/warning-before-stop.test.ts is
    // about the delivered warning).
    config.idle.rules = [{ ...(base as IdleRuleConfig), stopWithoutDeliveredWarning: true, ...rule }];
    tune(config);
  });
  const log = options.log ?? silentLogger();
  const events = new EventBus<EvaluationEvents>();
  const decided: IdleWorld['decided'] = [];
  events.on('action:decided', (event) => decided.push(event));
  const ticks: Tick[] = [];
  const controller = new AbortController();
  const evaluateNow = async () => {
    const now = h.clock.now();
    const ctx: EvaluationContext = {
      config: h.config,
      db: h.db,
      clock: h.clock,
      now,
      log,
      signal: controller.signal,
      apis: new Map([[ACCOUNT, h.api]]),
      events,
      snapshots: await readSnapshots(h.db, h, now),
      budgets: { billedSince: new Map(), spend: new Map(), resources: new Map() },
      findings: [],
      unjudged: [],
      commandLine: BARE_COMMAND_LINE,
    };
    await runIdleLadder(ctx);
    return ctx.findings;
  };
  const collect = (collector: Collector) => async () => {
    await runCollector(collector, {
      account: ACCOUNT,
      api: h.api,
      db: h.db,
      config: h.config,
      clock: h.clock,
      log,
      signal: controller.signal,
      timeoutMs: 600_000,
    });
  };
  const scheduler = new VirtualScheduler(h.clock, h.inflight, log);
  scheduler.add({ name: 'pods', schedule: h.config.collectors.pods.schedule, run: collect(podsCollector) });
  scheduler.add({ name: 'catalog', schedule: h.config.collectors.catalog.schedule, run: collect(catalogCollector) });
  scheduler.add({
    name: 'evaluate',
    schedule: '30 * * * * *',
    run: async () => {
      const now = h.clock.now();
      ticks.push({ at: now, findings: await evaluateNow() });
    },
  });
  const actionPath = /^\/v2\/pods\/[^/]+\/action$/;
  const podPath = /^\/v2\/pods\/[^/]+$/;
  return {
    h,
    ticks,
    decided,
    runUntil: (offset) => scheduler.runUntil(at(offset)),
    evaluateNow,
    receipts: async (podId) => (await recentReceipts(h.db, 10_000, podId ? { podId } : {})).reverse() as IdleReceipt[],
    actionRequests: () => h.sim.requestLog.entries().filter((e) => e.method === 'POST' && actionPath.test(e.path)),
    rereads: () => h.sim.requestLog.entries().filter((e) => e.method === 'GET' && podPath.test(e.path)),
    findingsAt: (offset) => ticks.find((tick) => tick.at === at(offset))?.findings ?? [],
    async close() {
      controller.abort();
      await scheduler.stop(5_000);
      await h.close();
    },
  };
}

/** Decisions of a Pod's receipts as `HH:MM:SS decision[:reason]`, oldest first. */
export async function timeline(world: IdleWorld, podId: string): Promise<string[]> {
  return (await world.receipts(podId)).map((receipt) => {
    const time = new Date(receipt.decidedAt).toISOString().slice(11, 19);
    const guard = receipt.decision === 'blocked' ? `:${receipt.reason?.split(':')[0]}` : '';
    return `${time} ${receipt.decision}${guard}`;
  });
}
