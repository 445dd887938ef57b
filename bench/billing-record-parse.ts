/**
 * Per-record cost of reading a `GET /billing/pods` answer at the boundary: JSON.parse of a whole
 * answer, then each record through its zod schema (as RestApi.billingRoute does with parseItems),
 * in µs of this process's CPU per record (CPU, not wall time: the figure holds on a loaded
 * machine). The backfill of a `large` account reads about 1.7 M such records, so each
 * µs here is about 1.7 s of the daemon's CPU.
 *
 *   node --import tsx bench/billing-record-parse.ts [records]
 */
import { parseItems } from '../src/api/parse.js';
import { ListPodBillingResponse } from '../src/api/schemas/billing.js';
import { fmt } from './support.js';

const RECORDS = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 20_000);
const ROUNDS = 7;
const HOUR_MS = 3_600_000;

/** An answer shaped as the simulator writes it: records per hour and Pod, six amounts each. */
function answerText(records: number): string {
  const start = Date.UTC(2026, 10, 1);
  const list = Array.from({ length: records }, (_, i) => {
    const hour = start + Math.floor(i / 200) * HOUR_MS;
    const gpu = Math.round(Math.random() * 4_000) / 1_000;
    return {
      startTime: new Date(hour).toISOString().replace('.000Z', 'Z'),
      endTime: new Date(hour + HOUR_MS).toISOString().replace('.000Z', 'Z'),
      podId: `pod-${(i % 200).toString(36).padStart(6, '0')}`,
      totalAmount: gpu + 0.012,
      gpuAmount: gpu,
      cpuAmount: 0.01,
      diskAmount: 0.002,
    };
  });
  return JSON.stringify({ records: list, metadata: {} });
}

const { records } = ListPodBillingResponse.shape;
const text = answerText(RECORDS);
const idOf = (raw: Record<string, unknown>) => raw.podId;

/** This process's CPU so far (user + system), µs. */
function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const perRecord: { parse: number; schema: number }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const t0 = cpuUs();
  const body = JSON.parse(text) as unknown;
  const t1 = cpuUs();
  const parsed = parseItems(records.element, 'records', body, 'GET /billing/pods', idOf);
  const t2 = cpuUs();
  if (parsed.items.length !== RECORDS)
    throw new Error(`rejected ${parsed.rejected.length}: ${parsed.rejected[0]?.reason}`);
  perRecord.push({ parse: (t1 - t0) / RECORDS, schema: (t2 - t1) / RECORDS });
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
console.log(
  `${RECORDS} records, median of ${ROUNDS}: JSON.parse ${fmt(median(perRecord.map((r) => r.parse)), 2)} µs/record, ` +
    `schema ${fmt(median(perRecord.map((r) => r.schema)), 2)} µs/record`,
);
